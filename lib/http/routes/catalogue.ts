/**
 * The open API catalogue's routes: each API of the catalogue table (lib/catalogue/table.ts) is
 * its own registry entry. Kept apart from the table, so that a catalogue function imports only
 * its own group's APIs.
 */
import type { CatalogueEntry } from '../../catalogue/entry.ts';
import { catalogueUnits } from '../../usage/units.ts';
import { document, type Route } from './route.ts';

/** How an entry's input goes upstream, as the document says it. */
const SENDS_AS_TEXT = {
  query: 'query parameters',
  form: 'an application/x-www-form-urlencoded UTF-8 body',
  json: 'a JSON body',
  raw: 'the raw bytes of the request body',
} as const;

/** The registry entry of one catalogue API. */
export function routeOfEntry(entry: CatalogueEntry): Route {
  const route: Route = {
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
  ROUTE_DOCS: {
    const upstream = `${entry.upstream.method} ${entry.upstream.paths.join(' or ')}`;
    const binary = entry.answers.kind === 'binary';
    document(route, {
      description: [entry.description, `Calls \`${upstream}\` with ${SENDS_AS_TEXT[entry.sends]}.`]
        .filter(Boolean)
        .join(' '),
      responses: [
        {
          status: 200,
          description: binary
            ? "The platform's bytes, unchanged, with its Content-Type"
            : "The platform's answer, unchanged",
          contentTypes: entry.answers.contentTypes,
          binary,
          ...(binary || entry.answers.kind === 'json-or-xml' ? {} : { schema: { type: 'object' } }),
        },
      ],
    });
  }
  return route;
}
