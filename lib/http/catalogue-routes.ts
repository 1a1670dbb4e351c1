/**
 * A catalogue group's routes in one function: each entry of the group (lib/catalogue/) is a
 * route of the registry, bound like every other route, and its handler is the same three steps
 * for every API: validated input -> CatalogueClient.call -> the upstream answer byte for byte.
 */
import { catalogueClientOf } from '../catalogue/client.ts';
import type { CatalogueEntry } from '../catalogue/entry.ts';
import { getRuntime } from '../runtime.ts';
import { callerRoute } from './caller-route.ts';
import { answerHandOff, passThroughOrHandedOff } from './hand-off.ts';
import { routeGroup } from './route-group.ts';
import { routeOfEntry } from './routes/catalogue.ts';

export function catalogueRoutes(entries: readonly CatalogueEntry[]) {
  // Built now, at cold start: a deployed function without OPENAPI_BASE_URL fails its init.
  const client = catalogueClientOf(getRuntime());
  // Speech and images too large to return are handed off (hand-off.ts).
  const handOff = answerHandOff(getRuntime());
  return routeGroup(
    entries.map((entry) =>
      callerRoute(
        routeOfEntry(entry),
        async (request) => {
          const answer = await client.call(
            entry,
            { body: request.body, query: request.query, path: request.path, bytes: request.bytes },
            { accept: request.headers.accept },
            request.call,
          );
          return passThroughOrHandedOff(answer, 200);
        },
        { handOff },
      ),
    ),
  );
}
