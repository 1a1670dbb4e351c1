/**
 * docs/callers.md's table of routes and scopes, held to the route registry: a line for every
 * route with the scope it needs (a catalogue API's routes share its line), and every fixed scope
 * of the vocabulary in it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_APIS, FIXED_SCOPES } from '../../../lib/core/scopes.ts';
import { routes } from '../../../lib/http/routes/index.ts';
import { type Route, routeKeyOf } from '../../../lib/http/routes/route.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The rows of the table whose header is `| route | scope | also granted by |`: route, scope. */
function scopeRows(): [string, string][] {
  const doc = readFileSync(path.join(ROOT, 'docs/callers.md'), 'utf8');
  const table = /\| route \| scope \| also granted by \|\n\| [-| ]+\|\n((?:\|.*\|\n)+)/.exec(doc);
  expect(table, "docs/callers.md's table of scopes").not.toBeNull();
  return table![1]!
    .trim()
    .split('\n')
    .map((row) => {
      const [route = '', scope = ''] = row.split('|').slice(1, 3);
      return [route.trim(), scope.trim()];
    });
}

/** What the scope cell of a route says first: its scope, `any known caller`, or `none`. */
function scopeCellStart(route: Route): string {
  if (route.access === 'public' || route.reference) return 'none';
  if (route.access === 'caller') return 'any known caller';
  return `\`${route.access.scope.replace('{name}', '<name>')}\``;
}

describe("docs/callers.md's table of scopes", () => {
  const rows = scopeRows();

  it('gives every route of the registry but the catalogue’s its line, with the scope it needs', () => {
    for (const route of routes.filter((each) => each.tag !== 'catalogue')) {
      const row = rows.find(([cell]) => cell.includes(`\`${routeKeyOf(route)}\``));
      expect(row, routeKeyOf(route)).toBeDefined();
      expect(row![1].startsWith(scopeCellStart(route)), `${routeKeyOf(route)}: ${row![1]}`).toBe(
        true,
      );
    }
  });

  it('gives every API of the catalogue its line, with its scope', () => {
    for (const api of CATALOGUE_APIS) {
      expect(
        rows.some(([, scope]) => scope.startsWith(`\`catalogue:${api}\``)),
        api,
      ).toBe(true);
    }
  });

  it('names every fixed scope of the vocabulary', () => {
    const text = rows.map(([, scope]) => scope).join('\n');
    for (const scope of FIXED_SCOPES) expect(text, scope).toContain(`\`${scope}\``);
  });
});

describe("docs/callers.md's prose on the reference", () => {
  it('says what the registry does: no token for a reference route, unless the stage turns publicReference off', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/callers.md'), 'utf8');
    const reference = routes.filter((route) => route.reference);
    expect(reference.map(routeKeyOf)).toContain('GET /openapi.json');
    for (const route of reference) expect(route.access, routeKeyOf(route)).toBe('public');
    // Every sentence that asks a token of GET /openapi.json says it is a stage's choice.
    const sentences = doc
      .split(/(?<=[.|])\s+/)
      .filter((sentence) => sentence.includes('`GET /openapi.json`'));
    expect(sentences.length).toBeGreaterThan(0);
    for (const sentence of sentences) {
      if (/known caller|valid (token|one)/.test(sentence)) {
        expect(sentence).toContain('`publicReference`');
      }
    }
  });
});
