/**
 * The docs' tables made from the route table (scripts/docs.ts): the README's routes and
 * docs/callers.md's scopes, each route with its line, and the check CI runs, which fails on a
 * table that is not what the registry says.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOGUE_APIS } from '../../../lib/core/scopes.ts';
import { routes } from '../../../lib/http/routes/index.ts';
import { type Route, routeKeyOf } from '../../../lib/http/routes/route.ts';
import { routeTable, scopeTable, staleFiles } from '../../../scripts/docs.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** The rows of a generated table, as their cells. */
const rowsOf = (table: string) =>
  table
    .split('\n')
    .slice(2)
    .map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );

/** What the scope cell of a route says first: its scope, `any known caller`, or `none`. */
function scopeCellStart(route: Route): string {
  if (route.access === 'public' || route.reference) return 'none';
  if (route.access === 'caller') return 'any known caller';
  return `\`${route.access.scope.replace('{name}', '<name>')}\``;
}

describe("the README's route table", () => {
  const cells = rowsOf(routeTable()).map(([route = '']) => route);

  it('names every route of the registry but the catalogue’s, each by its method and path', () => {
    const named = cells.flatMap((cell) =>
      [...cell.matchAll(/`([A-Z]+ \/[^`?]*)(?:\?[^`]*)?`/g)].map((match) => match[1]!),
    );
    const own = routes.filter((route) => route.tag !== 'catalogue').map(routeKeyOf);
    expect([...named].sort()).toEqual([...own].sort());
    expect(cells).toContain('the catalogue routes');
  });
});

describe("docs/callers.md's table of scopes", () => {
  const rows = rowsOf(scopeTable());

  it('gives every route of the registry its line, with the scope it needs', () => {
    for (const route of routes) {
      const row = rows.find(([cell = '']) => cell.includes(`\`${routeKeyOf(route)}\``));
      expect(row, routeKeyOf(route)).toBeDefined();
      expect(row![1]!.startsWith(scopeCellStart(route)), `${routeKeyOf(route)}: ${row![1]}`).toBe(
        true,
      );
    }
  });

  it('gives every API of the catalogue its line, with its scope', () => {
    for (const api of CATALOGUE_APIS) {
      expect(rows.some(([, scope = '']) => scope.startsWith(`\`catalogue:${api}\``))).toBe(true);
    }
  });
});

describe('npm run docs -- --check', () => {
  let scratch = '';
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("passes on the repository: its tables are the registry's", async () => {
    const { stdout, stderr } = await run(process.execPath, ['scripts/docs.ts', '--check'], {
      cwd: ROOT,
    });
    expect(`${stdout}${stderr}`).toBe('');
  });

  it('names each file whose table is stale, and exits 1', async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'docs-'));
    for (const file of ['README.md', 'docs/callers.md']) {
      cpSync(path.join(ROOT, file), path.join(scratch, file), { recursive: true });
    }
    expect(staleFiles(scratch)).toEqual([]);
    const readme = path.join(scratch, 'README.md');
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('| `GET /health` | none |\n', ''));
    expect(staleFiles(scratch)).toEqual(['README.md']);
    const failed = await run(process.execPath, ['scripts/docs.ts', '--check', '--root', scratch], {
      cwd: ROOT,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toBe(
      'README.md: its table is stale; run npm run docs\n',
    );
  });
});
