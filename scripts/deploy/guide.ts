/**
 * The shell blocks of the docs, as a reader runs them: each fenced `bash` block with the section
 * it is in, its commands (a line continued with `\`, a heredoc with its body, a `for ... done`
 * loop: one command each), the `<...>` a reader fills in, and the same text with them filled.
 * `npm run rehearse` runs "Deploy from zero" with them; a test runs the package's own commands
 * of README.md and docs/deploy.md.
 */

export interface ShellBlock {
  /** The heading the block is under ('' before the first). */
  readonly section: string;
  /** 1-based line of the block's first line in the document. */
  readonly line: number;
  readonly text: string;
}

/** Every fenced bash block of a markdown document, in order. */
export function bashBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!.trim();
    if (lines[i]!.trim() !== '```bash') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ section, line: start + 1, text: `${lines.slice(start, end).join('\n')}\n` });
    i = end;
  }
  return blocks;
}

/** The blocks of the section whose heading starts with `heading`, and of its subsections. */
export function blocksOfSection(markdown: string, heading: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex(
    (line) => /^#{1,6}\s/.test(line) && line.replace(/^#+\s+/, '').startsWith(heading),
  );
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  let end = start + 1;
  while (end < lines.length) {
    const match = /^(#+)\s/.exec(lines[end]!);
    if (match && match[1]!.length <= level) break;
    end++;
  }
  const offset = start;
  return bashBlocks(lines.slice(start, end).join('\n')).map((block) => ({
    ...block,
    line: block.line + offset,
  }));
}

/** A line without its comment (` # ...`), for what a reader fills in. */
const withoutComment = (line: string) => line.replace(/(^|\s)#\s.*$/, '');

/** The `<...>` a reader fills in, outside comments, each once, in order. */
export function placeholdersOf(text: string): string[] {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    for (const match of withoutComment(line).matchAll(/<[A-Za-z][^<>\n]*>/g)) found.add(match[0]);
  }
  return [...found];
}

/** The text with each `from` replaced by its `to` (every occurrence). */
export function fill(text: string, fills: readonly (readonly [string, string])[]): string {
  let filled = text;
  for (const [from, to] of fills) filled = filled.split(from).join(to);
  return filled;
}

/**
 * A block's commands: a line continued with `\` joined to the next, a heredoc with its body up to
 * its delimiter, a `for`/`while`/`if` with its body up to `done`/`fi`. Blank lines and comment
 * lines are left out.
 */
export function commandsOf(text: string): string[] {
  const lines = text.split('\n');
  const commands: string[] = [];
  let current: string[] = [];
  let heredoc: string | undefined;
  let depth = 0;
  for (const line of lines) {
    if (heredoc !== undefined) {
      current.push(line);
      if (line.trim() === heredoc) heredoc = undefined;
    } else {
      if (current.length === 0 && (line.trim() === '' || line.trim().startsWith('#'))) continue;
      current.push(line);
      const code = withoutComment(line);
      const opens = /<<-?\s*['"]?([A-Za-z_]+)['"]?/.exec(code);
      if (opens) heredoc = opens[1];
      if (/^\s*(for|while|until)\b/.test(code) || /^\s*if\b/.test(code)) depth++;
      if (/^\s*(done|fi)\b/.test(code)) depth--;
      if (heredoc === undefined && depth === 0 && code.endsWith('\\')) continue;
    }
    if (heredoc === undefined && depth === 0 && !withoutComment(current.at(-1)!).endsWith('\\')) {
      commands.push(current.join('\n'));
      current = [];
    }
  }
  if (current.length > 0) commands.push(current.join('\n'));
  return commands;
}

/** The ARNs of a text that name a region (not a variable's or a placeholder's), with it. */
export function regionalArns(text: string): { arn: string; region: string }[] {
  return [...text.matchAll(/\barn:aws[a-z-]*:[a-z0-9-]+:([a-z]{2}(?:-[a-z]+)+-\d):[^\s"'`]*/g)].map(
    (match) => ({ arn: match[0], region: match[1]! }),
  );
}
