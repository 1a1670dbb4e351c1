/**
 * docs/callers.md's table of routes and scopes names every fixed scope of the vocabulary. The
 * table itself is made from the route table (scripts/docs.ts; test/unit/scripts/docs.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SCOPES } from '../../../lib/core/scopes.ts';
import { routes } from '../../../lib/http/routes/index.ts';
import { routeKeyOf } from '../../../lib/http/routes/route.ts';

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

describe("docs/callers.md's table of scopes", () => {
  const rows = scopeRows();

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
