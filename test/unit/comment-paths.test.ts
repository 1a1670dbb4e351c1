/**
 * Every file a comment names is there. A comment that names a moved or deleted file sends the
 * reader nowhere, and no other check sees it. Two kinds of name are checked: a path from the
 * repository's root (`lib/core/config.ts`, `sls/plugins/`), and a bare module name
 * (`config.ts`), which must be some file's name. A name with `<`, `*` or `{` in it is a
 * pattern, not a file. A bare `.cjs` name is a bundle the build writes, so it is not checked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['lib', 'functions', 'emulator', 'scripts', 'sls', 'bench', 'test'];
/** Files outside those folders whose comments are checked too, and how they mark a comment. */
const HASH_COMMENTED = ['serverless.yml', '.ci/run'];
const SLASH_COMMENTED = ['knip.jsonc', 'vitest.config.ts', '.dependency-cruiser.ts'];
const TOP = ['lib', 'functions', 'emulator', 'scripts', 'sls', 'bench', 'test', 'docs', 'events'];

/**
 * Stale names in files another change is rewriting now, each to be mended there. The list holds
 * only what is still stale: a name mended must leave it.
 */
const STILL_TO_MEND: string[] = [];

interface Comment {
  readonly line: number;
  readonly text: string;
}

/**
 * The comments of JavaScript or TypeScript source, each with the line it starts on. Strings,
 * template literals and regular expressions are skipped, so that `//` in them is no comment.
 */
function commentsOf(text: string): Comment[] {
  const found: Comment[] = [];
  let line = 1;
  let i = 0;
  // A `${` of a template pushes 'template', so that its `}` goes back into the template.
  const braces: ('code' | 'template')[] = [];
  // The last character of code: after an operator or an opening, a `/` starts a regex.
  let last = '';
  const template = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '\n') line++;
      i++;
      if (c === '`') break;
      if (c === '$' && text[i] === '{') {
        braces.push('template');
        i++;
        break;
      }
    }
    last = '`';
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\n') line++;
    if (c === '/' && (next === '/' || next === '*')) {
      const end = text.indexOf(next === '/' ? '\n' : '*/', i + 2);
      const stop = end < 0 ? text.length : end;
      const body = text.slice(i + 2, stop);
      found.push({ line, text: body });
      line += body.split('\n').length - 1;
      i = next === '/' ? stop : stop + 2;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      last = c;
    } else if (c === '`') {
      i++;
      template();
    } else if (c === '}' && braces.pop() === 'template') {
      i++;
      template();
    } else if (c === '/' && startsRegex(text, i, last)) {
      i = regexEnd(text, i);
      last = '/';
    } else {
      if (c === '{') braces.push('code');
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return found;
}

/** Whether a `/` at `at` opens a regular expression rather than dividing. */
function startsRegex(text: string, at: number, last: string): boolean {
  if (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last)) return true;
  return /\b(return|typeof|case|of|in)\s*$/.test(text.slice(Math.max(0, at - 10), at));
}

/** Just past the closing `/` of the regular expression that opens at `at`. */
function regexEnd(text: string, at: number): number {
  let i = at + 1;
  let inClass = false;
  while (i < text.length && text[i] !== '\n') {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) break;
    i++;
  }
  return i + 1;
}

/** The comments of a YAML or shell file: what follows a `#` that starts a word. */
function hashCommentsOf(text: string): Comment[] {
  return text.split('\n').flatMap((line, index) => {
    const comment = /(?:^|\s)#(?!!)(.*)$/.exec(line);
    return comment ? [{ line: index + 1, text: comment[1] ?? '' }] : [];
  });
}

const ROOTED = new RegExp(`(?<![\\w./@-])((?:${TOP.join('|')})/[\\w./+-]*)(?![\\w<*{])`, 'g');
const BARE = /(?<![\w./@$-])([a-z][\w-]*(?:\.[\w-]+)*\.ts)(?![\w/<*{(])/g;
/** How a file's or a folder's path ends; `functions/jobs/list.handler` names no file. */
const FILE_PATH = /\/$|\/[^/.]+$|\.(ts|cjs|mjs|js|json|jsonc|yml|yaml|md)$/;

/** The files a comment names: paths from the root, and bare module names. */
function namesIn(text: string): { rooted: string[]; bare: string[] } {
  const clean = (name: string) => name.replace(/[.,;:]+$/, '');
  const rooted = [...text.matchAll(ROOTED)]
    .filter((match) => !/[<*{]/.test(text.slice(match.index, match.index + match[0].length + 1)))
    .map((match) => clean(match[1] ?? ''))
    .filter((name) => !name.includes('...') && FILE_PATH.test(name));
  const bare = [...text.matchAll(BARE)].map((match) => clean(match[1] ?? ''));
  return { rooted, bare };
}

/** Files under a folder, as repository paths. */
function filesUnder(folder: string): string[] {
  return (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/')))
    .filter((file) => !file.includes('node_modules/'));
}

/** Each line of each comment of a file, with its line number. */
function commentLinesOf(file: string): Comment[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const comments = HASH_COMMENTED.includes(file) ? hashCommentsOf(text) : commentsOf(text);
  return comments.flatMap((comment) =>
    comment.text.split('\n').map((line, index) => ({ line: comment.line + index, text: line })),
  );
}

/** The names of one kind that are not there, as `file:line: name`. */
function missingNames(
  files: readonly string[],
  kind: 'rooted' | 'bare',
  isThere: (name: string) => boolean,
): string[] {
  const missing: string[] = [];
  for (const file of files) {
    for (const comment of commentLinesOf(file)) {
      for (const name of namesIn(comment.text)[kind]) {
        if (!isThere(name)) missing.push(`${file}:${comment.line}: ${name}`);
      }
    }
  }
  return missing;
}

const sources = SOURCE_FOLDERS.flatMap(filesUnder).filter((file) => /\.(ts|cjs|mjs)$/.test(file));
const basenames = new Set([
  ...readdirSync(ROOT),
  ...TOP.flatMap(filesUnder).map((file) => path.posix.basename(file)),
]);
const withoutLine = (found: string) => found.replace(/:\d+:/, ':');

describe('the files comments name', () => {
  const rootedMissing = missingNames(
    [...sources, ...HASH_COMMENTED, ...SLASH_COMMENTED],
    'rooted',
    (name) => existsSync(path.join(ROOT, name)),
  );
  const bareMissing = missingNames([...sources, ...SLASH_COMMENTED], 'bare', (name) =>
    basenames.has(name),
  );

  it('are there: a path from the root names a file or a folder of the repository', () => {
    expect(
      rootedMissing.filter((found) => !STILL_TO_MEND.includes(withoutLine(found))),
      'a comment names a path that is not there: name the file as it is now',
    ).toEqual([]);
  });

  it('are there: a bare module name is the name of some file of the repository', () => {
    expect(bareMissing, 'a comment names a module that is not there').toEqual([]);
  });

  it('hold in STILL_TO_MEND only names that are still stale', () => {
    const stale = [...rootedMissing, ...bareMissing].map(withoutLine);
    expect(STILL_TO_MEND.filter((entry) => !stale.includes(entry))).toEqual([]);
  });
});

describe('commentsOf', () => {
  it('finds line and block comments, with the line each starts on', () => {
    const text = ['/** one', ' * two */', 'const a = 1; // three', '/* four */ const b = 2;'];
    expect(commentsOf(text.join('\n'))).toEqual([
      { line: 1, text: '* one\n * two ' },
      { line: 3, text: ' three' },
      { line: 4, text: ' four ' },
    ]);
  });

  it('skips strings, templates and regular expressions, and comments inside no comment', () => {
    const text = [
      "const url = 'http://example.com'; // after a string",
      `const t = \`a $\{\`b // not $\{1} a comment\`} //c\`; // after a template`,
      "const r = /\\/\\/[/*]/.test(s) ? a / b : '/*'; // after a regex",
      '/* a block with // inside */',
    ];
    expect(commentsOf(text.join('\n')).map((comment) => comment.text)).toEqual([
      ' after a string',
      ' after a template',
      ' after a regex',
      ' a block with // inside ',
    ]);
  });
});

describe('namesIn', () => {
  it('reads paths from the root and bare module names, and leaves patterns and words alone', () => {
    const text =
      'See lib/core/config.ts, sls/plugins/ and (service-error.ts). Not lib/<area>/<name>.ts, ' +
      'functions/*.ts, functions/jobs/list.handler, Node.js, a .cjs file, list.cjs, gate.outage ' +
      'or https://example.com/lib/x.ts.';
    expect(namesIn(text)).toEqual({
      rooted: ['lib/core/config.ts', 'sls/plugins/'],
      bare: ['service-error.ts'],
    });
  });
});
