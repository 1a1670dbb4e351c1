// The layers of lib/, read from the table under "## Layers" in docs/architecture.md: the one place
// they are written. .dependency-cruiser.ts makes its import rules from them (`npm run lint`), and
// test/unit/scripts/layers.test.ts checks that those rules bite.
//
// A row names its folders of lib/ (`core/`), its files (`runtime.ts`) or `functions/` (the
// handlers, at the top of the repository) in the first column, and in the second every row it
// may import, each in backquotes: `lib/` stands for all of lib/, and the rest of the cell is
// prose, for the reader. Every folder and module at the top of lib/ needs a row: reading the
// table fails otherwise, and so does the lint.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A row of the table: its name, the repository path it stands for, the rows it may import. */
export interface Layer {
  readonly name: string;
  readonly path: string;
  readonly mayImport: readonly string[];
}

const ROOT = path.resolve(import.meta.dirname, '..');
export const DOC = 'docs/architecture.md';
/** Rows that are not under lib/ but at the top of the repository. */
const TOP = new Set(['functions/']);
/** In the second column, the whole of lib/. */
const ALL_OF_LIB = 'lib/';

/** The repository path a row's name stands for: a folder ends with a slash. */
const pathOf = (name: string): string => (TOP.has(name) ? name : `lib/${name}`);

/** The backquoted words of a table cell. */
const quoted = (cell: string): string[] =>
  [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The cells of a Markdown table's row. */
const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/** The table's rows, in order: `{ name, path, mayImport }`, one per name of the first column. */
function parseLayers(markdown: string): Layer[] {
  const section = /^## Layers\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown);
  if (!section) throw new Error(`${DOC}: no "## Layers" section`);
  const lines = section[1]!.split('\n').filter((line) => line.startsWith('|'));
  const [header, rule, ...body] = lines;
  if (!header || !/^\|[\s|:-]+\|$/.test(rule ?? '')) {
    throw new Error(`${DOC}: no table under "## Layers"`);
  }
  const [first, second] = cellsOf(header);
  if (first !== 'folder' || second !== 'may import') {
    throw new Error(`${DOC}: the layers table's columns are "folder | may import | why"`);
  }
  const rows = body.flatMap((line) => {
    const [names, mayImport] = cellsOf(line);
    const targets = quoted(mayImport ?? '');
    return quoted(names ?? '').map((name) => ({ name, path: pathOf(name), mayImport: targets }));
  });
  const names = new Set(rows.map((row) => row.name));
  for (const row of rows) {
    for (const target of row.mayImport) {
      if (target !== ALL_OF_LIB && !names.has(target)) {
        throw new Error(
          `${DOC}: the row of \`${row.name}\` may import \`${target}\`, which has no row`,
        );
      }
    }
  }
  if (names.size !== rows.length) {
    throw new Error(`${DOC}: a name has two rows in the layers table`);
  }
  return rows;
}

/** The folders (`<name>/`) and modules (`<name>.ts`) at the top of lib/. */
function topOfLib(root: string): string[] {
  return readdirSync(path.join(root, 'lib'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || /(?<!\.d)\.ts$/.test(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
}

/** The layers of the repository at `root`, checked against its lib/ and functions/. */
export function readLayers(root = ROOT): Layer[] {
  const rows = parseLayers(readFileSync(path.join(root, DOC), 'utf8'));
  const names = new Set(rows.map((row) => row.name));
  const missing = topOfLib(root).filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw new Error(
      `lib/${missing.join(', lib/')}: no row in the layers table of ${DOC} ("## Layers"): ` +
        'add one saying what it may import',
    );
  }
  const onDisk = new Set([...topOfLib(root), ...TOP]);
  const gone = rows.filter((row) => !onDisk.has(row.name)).map((row) => row.path);
  if (gone.length > 0) {
    throw new Error(`${DOC}: the layers table names ${gone.join(', ')}, not in the repository`);
  }
  return rows;
}

/** Whether a row may import another, by their names. */
export function mayImport(from: Layer, to: Layer): boolean {
  return (
    from.name === to.name ||
    from.mayImport.includes(to.name) ||
    (from.mayImport.includes(ALL_OF_LIB) && to.path.startsWith(ALL_OF_LIB))
  );
}
