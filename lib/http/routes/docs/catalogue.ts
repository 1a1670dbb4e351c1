/** The docs of a catalogue route, from its entry: what it calls upstream, and how it sends. */
import type { CatalogueEntry } from '../../../catalogue/entry.ts';
import type { RouteDocs } from './route-docs.ts';

/** How an entry's input goes upstream, as the document says it. */
const SENDS_AS_TEXT = {
  query: 'query parameters',
  form: 'an application/x-www-form-urlencoded UTF-8 body',
  json: 'a JSON body',
  raw: 'the raw bytes of the request body',
} as const;

export function catalogueDocsOf(entry: CatalogueEntry): RouteDocs {
  const upstream = `${entry.upstream.method} ${entry.upstream.paths.join(' or ')}`;
  const binary = entry.answers.kind === 'binary';
  return {
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
  };
}
