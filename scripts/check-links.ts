/**
 * `npm run check:links`: every relative link of the README and docs/*.md resolves: the file
 * exists, and a `#fragment` names a heading of it (GitHub's anchors: lower case, punctuation
 * dropped, spaces as hyphens, a repeated heading numbered -1, -2, ...). Links to other sites are
 * not followed (no network). Prints each broken link with its file and line; exits 1 when any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { commandLine, noArguments } from './local/args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The Markdown files checked: the README and every document of docs/. */
export function documents(root = ROOT): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(root, 'docs', name));
  return [path.join(root, 'README.md'), ...docs];
}

/** GitHub's anchor of a heading's text. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside fenced code). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly why: string;
}

/** The broken relative links of one Markdown file. */
export function brokenLinksOf(file: string, root = ROOT): BrokenLink[] {
  const text = readFileSync(file, 'utf8');
  const broken: BrokenLink[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    // Inline code is not a link.
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      const [pathPart = '', fragment] = target.split('#');
      const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
      const where = { file: path.relative(root, file), line: index + 1, target };
      if (!existsSync(resolved)) {
        broken.push({ ...where, why: 'no such file' });
        continue;
      }
      if (fragment === undefined || statSync(resolved).isDirectory()) continue;
      if (!resolved.endsWith('.md')) continue;
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(fragment)) {
        broken.push({
          ...where,
          why: `no heading #${fragment} in ${path.relative(root, resolved)}`,
        });
      }
    }
  });
  return broken;
}

function main(): void {
  commandLine('usage: npm run check:links (it takes no argument)', noArguments);
  const files = documents();
  const broken = files.flatMap((file) => brokenLinksOf(file));
  for (const link of broken)
    console.error(`${link.file}:${link.line}: ${link.target}: ${link.why}`);
  if (broken.length > 0) {
    console.error(`${broken.length} broken relative link(s) in ${files.length} files.`);
    process.exit(1);
  }
  console.log(`Every relative link of ${files.length} files resolves.`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
