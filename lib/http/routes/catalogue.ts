/**
 * The open API catalogue's routes: each API of the catalogue table (lib/catalogue/table.ts) is
 * its own registry entry. Kept apart from the table, so that a catalogue function imports only
 * its own group's APIs.
 */
import type { CatalogueApi } from '../../catalogue/api.js';
import type { Route } from './route.js';

const SENT = {
  query: 'query parameters',
  form: 'an application/x-www-form-urlencoded UTF-8 body',
  json: 'a JSON body',
  raw: 'the raw bytes of the request body',
} as const;

/** The registry entry of one catalogue API. */
export function routeOfApi(api: CatalogueApi): Route {
  const upstream = `${api.upstream.method} ${api.upstream.paths.join(' or ')}`;
  const binary = api.answers.kind === 'binary';
  return {
    function: api.function,
    id: api.id,
    method: api.method,
    path: api.path,
    auth: true,
    summary: api.summary,
    description: [api.description, `Calls \`${upstream}\` with ${SENT[api.sends]}.`]
      .filter(Boolean)
      .join(' '),
    tag: 'catalogue',
    input: { body: api.body, query: api.query, path: api.pathParams, rawBody: api.rawBody },
    answers: [
      {
        status: 200,
        description: binary
          ? "The platform's bytes, unchanged, with its Content-Type"
          : "The platform's answer, unchanged",
        contentTypes: api.answers.contentTypes,
        binary,
        ...(binary || api.answers.kind === 'json-or-xml' ? {} : { schema: { type: 'object' } }),
      },
    ],
  };
}
