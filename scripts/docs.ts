/**
 * Writes the docs' tables that follow from the route table (the registry, lib/http/routes/), so
 * that no one keeps them by hand: the README's route table, between `<!-- routes:start -->` and
 * `<!-- routes:end -->`, and the table of routes and scopes of docs/callers.md, between
 * `<!-- scopes:start -->` and `<!-- scopes:end -->`. A route's cells come from its entry and its
 * docs (lib/http/routes/docs/: `upstream`, `accessNote`).
 *
 * `npm run docs` writes them. `npm run docs -- --check` writes nothing: it exits 1 and names each
 * file whose table is not what the registry says (CI runs it). `--root <dir>` works on another
 * copy of the docs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { catalogue } from '../lib/catalogue/table.ts';
import { knownKeysAt } from '../lib/core/known-keys.ts';
import { scopesGranting } from '../lib/core/scopes.ts';
import { docsOf } from '../lib/http/routes/docs/index.ts';
import { routes } from '../lib/http/routes/index.ts';
import { type Route, routeKeyOf } from '../lib/http/routes/route.ts';
import { commandLine, parseCommand, UsageError } from './local/args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A table of the docs made from the registry: its file and the markers around it. */
interface Generated {
  readonly file: string;
  readonly name: string;
  readonly table: () => string;
}

const NUMBERS = [
  'no',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/** A count in words, as the docs write them (digits past twenty). */
const inWords = (count: number) => NUMBERS[count] ?? String(count);

const isCatalogue = (route: Route) => route.tag === 'catalogue';

/** `GET /jobs?page=&limit=`: the route key, with the query parameters it takes. */
function routeCell(route: Route): string {
  const query = route.input?.query ? (knownKeysAt(route.input.query, []) ?? []) : [];
  const suffix = query.length > 0 ? `?${query.map((name) => `${name}=`).join('&')}` : '';
  return `\`${routeKeyOf(route)}${suffix}\``;
}

/** Rows of a table, the routes of neighbouring rows with the same other cells in one row. */
function rowsOf(rows: readonly (readonly [route: string, ...rest: string[]])[]): string[] {
  const joined: [string, ...string[]][] = [];
  for (const [route, ...rest] of rows) {
    const last = joined.at(-1);
    if (last && last.slice(1).join('|') === rest.join('|')) last[0] = `${last[0]}, ${route}`;
    else joined.push([route, ...rest]);
  }
  return joined.map((cells) => `|${cells.map((cell) => (cell ? ` ${cell} ` : ' ')).join('|')}|`);
}

/** The README's route table: what each route calls upstream, the catalogue's in one line. */
export function routeTable(): string {
  const own = routes.filter((route) => !isCatalogue(route));
  const rows = own.map((route) => {
    const upstream = docsOf(route).upstream;
    if (!upstream) throw new Error(`${route.id}: its docs say nothing of its upstream`);
    return [routeCell(route), upstream] as const;
  });
  const apis = new Set(catalogue.flatMap((entry) => entry.upstream.paths)).size;
  const catalogueRow =
    `| the catalogue routes | ${inWords(catalogue.length)} routes over ${inWords(apis)} products: ` +
    'translation, speech, maps, CAPTCHA, short URL, trends ([docs/catalogue.md](docs/catalogue.md)) |';
  return ['| route | upstream |', '| --- | --- |', ...rowsOf(rows), catalogueRow].join('\n');
}

/** The scope cell of a route: what a caller must hold, and the note of its docs. */
function scopeCell(route: Route): string {
  const note = docsOf(route).accessNote;
  if (route.reference) {
    return "none (no token), unless the stage's `publicReference` is `false`: then any known caller";
  }
  if (route.access === 'public') return note ? `none: ${note}` : 'none (no token)';
  const needs =
    route.access === 'caller'
      ? 'any known caller'
      : `\`${route.access.scope.replace('{name}', '<name>')}\``;
  return note ? `${needs} (${note})` : needs;
}

/** The scopes that grant a route's besides its own: `actions:*`, `*`. */
function grantedByCell(route: Route): string {
  if (route.access === 'public' || route.reference) return '';
  const scope = route.access === 'caller' ? '' : route.access.scope;
  const others = route.access === 'caller' ? ['*'] : scopesGranting(scope).slice(1);
  return others.map((granting) => `\`${granting}\``).join(', ');
}

/** docs/callers.md's table of routes and scopes, a catalogue API's routes in one line. */
export function scopeTable(): string {
  const rows = routes.map((route) => [
    `\`${routeKeyOf(route)}\``,
    scopeCell(route),
    grantedByCell(route),
  ]);
  return [
    '| route | scope | also granted by |',
    '| --- | --- | --- |',
    ...rowsOf(rows as [string, string, string][]),
    '| any other path or method | none: 404/`300` or 405/`100` | |',
  ].join('\n');
}

const GENERATED: readonly Generated[] = [
  { file: 'README.md', name: 'routes', table: routeTable },
  { file: 'docs/callers.md', name: 'scopes', table: scopeTable },
];

/** The file's text with its table as the registry says it; throws where the markers are not. */
function withTable(text: string, generated: Generated): string {
  const start = `<!-- ${generated.name}:start -->\n`;
  const end = `<!-- ${generated.name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${generated.file}: no ${start.trim()} ... ${end}`);
  return `${text.slice(0, from + start.length)}${generated.table()}\n${text.slice(to)}`;
}

/** The files under `root` whose tables are not what the registry says. */
export function staleFiles(root = ROOT): string[] {
  return GENERATED.filter((generated) => {
    const text = readFileSync(path.join(root, generated.file), 'utf8');
    return withTable(text, generated) !== text;
  }).map((generated) => generated.file);
}

/** Writes every table under `root`; returns the files it changed. */
function writeTables(root = ROOT): string[] {
  const changed = staleFiles(root);
  for (const generated of GENERATED.filter((each) => changed.includes(each.file))) {
    const file = path.join(root, generated.file);
    writeFileSync(file, withTable(readFileSync(file, 'utf8'), generated));
  }
  return changed;
}

if (import.meta.main) {
  const { check, root } = commandLine('usage: npm run docs [-- --check] [--root <dir>]', (args) => {
    const { values, positionals } = parseCommand(args, {
      check: { type: 'boolean' },
      // Another copy of the repository's docs (the tests' scratch copies).
      root: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unknown argument: ${positionals[0]}`);
    return { check: values.check === true, root: path.resolve(values.root ?? ROOT) };
  });
  if (check) {
    const stale = staleFiles(root);
    for (const file of stale) console.error(`${file}: its table is stale; run npm run docs`);
    process.exitCode = stale.length > 0 ? 1 : 0;
  } else {
    const changed = writeTables(root);
    console.log(changed.length > 0 ? `Wrote ${changed.join(', ')}.` : 'The tables are current.');
  }
}
