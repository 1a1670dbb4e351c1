/**
 * The open API catalogue's routes: each API of the catalogue table (lib/catalogue/table.ts) is
 * its own registry entry. Kept apart from the table, so that a catalogue function imports only
 * its own group's APIs.
 */
import type { CatalogueEntry } from '../../catalogue/entry.ts';
import { catalogueUnits } from '../../usage/units.ts';
import type { Route } from './route.ts';

/** The registry entry of one catalogue API. */
export function routeOfEntry(entry: CatalogueEntry): Route {
  return {
    function: entry.function,
    id: entry.id,
    method: entry.method,
    path: entry.path,
    access: { scope: `catalogue:${entry.api}` },
    // Translation and speech are billed by the characters of `text`; every other API by request.
    spends: ({ body }) => catalogueUnits(entry.api, body),
    // Bytes (speech, map images, CAPTCHA images) may pass what a Lambda function can return.
    ...(entry.answers.kind === 'binary' ? { handsOff: true as const } : {}),
    summary: entry.summary,
    tag: 'catalogue',
    input: {
      body: entry.body,
      query: entry.query,
      path: entry.pathParams,
      bytes: entry.bytes && { contentTypes: entry.bytes, required: true, checkedBy: 'stack' },
    },
  };
}
