/**
 * A catalogue group's routes in one function: each entry of the group (lib/catalogue/) is a
 * route of the registry, bound like every other route, and its handler is the same three steps
 * for every API: validated input -> CatalogueClient.call -> the upstream answer byte for byte.
 */
import { catalogueClientOf } from '../catalogue/client.ts';
import type { CatalogueEntry } from '../catalogue/entry.ts';
import { getRuntime } from '../runtime.ts';
import { bind } from './bind.ts';
import { answerHandOff, passThroughOrHandedOff } from './hand-off.ts';
import { admissionOf, callerParts, type InputSteps } from './parts.ts';
import { routeGroup } from './route-group.ts';
import { routeOfEntry } from './routes/catalogue.ts';

/**
 * The group's routes, bound with the steps that read their input (`steps`: those its entries
 * use, named by its function, so that its bundle carries no other; one missing fails its init).
 */
export function catalogueRoutes(entries: readonly CatalogueEntry[], steps: Partial<InputSteps>) {
  // Built now, at cold start: a deployed function without OPENAPI_BASE_URL fails its init.
  const runtime = getRuntime();
  const client = catalogueClientOf(runtime);
  // Speech and images too large to return are handed off (hand-off.ts).
  const parts = {
    ...callerParts(runtime),
    ...steps,
    admission: admissionOf(runtime),
    handOff: answerHandOff(runtime),
  };
  return routeGroup(
    entries.map((entry) =>
      bind(
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
        parts,
      ),
    ),
  );
}
