/**
 * The cases of a catalogue module's input schemas: inputs each route accepts, and inputs it
 * refuses before anything is sent, with the path of the field the refusal names.
 */
import { expect, it } from 'vitest';
import type { CatalogueEntry } from '../../../../lib/catalogue/entry.ts';
import { routeKeyOf } from '../../../../lib/http/routes/route.ts';

export type Part = 'body' | 'query' | 'path';
/** Route key, part, input. */
export type Accepted = [string, Part, unknown];
/** What the case is, route key, part, input, the path of the field the refusal names. */
export type Refused = [string, string, Part, unknown, string];

/** The schema of one part of a route of these entries. */
export function schemaOf(entries: readonly CatalogueEntry[], routeKey: string, part: Part) {
  const api = entries.find((entry) => routeKeyOf(entry) === routeKey);
  if (!api) throw new Error(`no entry for ${routeKey}`);
  const schema = { body: api.body, query: api.query, path: api.pathParams }[part];
  if (!schema) throw new Error(`${routeKey} has no ${part} schema`);
  return schema;
}

/** One test per case, in the describe block this is called in. */
export function checkInputSchemas(
  entries: readonly CatalogueEntry[],
  accepted: readonly Accepted[],
  refused: readonly Refused[],
): void {
  it.each(accepted)('%s accepts a valid %s', (routeKey, part, input) => {
    const result = schemaOf(entries, routeKey, part).safeParse(input);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(refused)('refuses %s', (_name, routeKey, part, input, path) => {
    const result = schemaOf(entries, routeKey, part).safeParse(input);
    expect(result.success).toBe(false);
    const paths = (result.error?.issues ?? []).map((issue) => issue.path.join('.'));
    expect(paths).toContain(path);
    // Every issue says in words what was expected (zod/mini has no default messages).
    for (const issue of result.error?.issues ?? []) expect(issue.message).not.toBe('Invalid input');
  });
}
