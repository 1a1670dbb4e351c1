/**
 * An execution route (ANY /actions/{name}, POST /triggers/{name}), bound as its function binds
 * it: the stack checks the target its path names, and the body against it, before admission
 * (middleware/execution-target.ts); the handler runs the checked execution through the target's
 * URL, and passes the answer back with its activation id (or hands it off when too large).
 */
import type { NamePath } from '../core/schemas.ts';
import { executionClientOf } from '../execution/client.ts';
import { ACTIVATION_ID_HEADER, type CheckedExecution } from '../execution/request.ts';
import { getRuntime } from '../runtime.ts';
import { bind } from './bind.ts';
import { answerHandOff, passThroughOrHandedOff } from './hand-off.ts';
import { executionTarget } from './middleware/execution-target.ts';
import { admissionOf, callerParts, pathParams, queryOf } from './parts.ts';
import type { BoundRoute } from './route-stack.ts';
import type { ExecutionQuery } from './routes/functions.ts';
import type { Route } from './routes/route.ts';

export function executionRoute(
  route: Route<CheckedExecution, ExecutionQuery, NamePath>,
): BoundRoute {
  const checkedBy = route.input?.bytes?.checkedBy;
  if (typeof checkedBy !== 'object') throw new Error(`${route.id} runs no action or trigger`);
  const runtime = getRuntime();
  // Built now, at cold start, so that a bad configuration fails the function's init.
  const client = executionClientOf(runtime);
  return bind(
    route,
    async (request) => {
      const { target, body } = request.body;
      const execution = { method: request.method, result: request.query.result, body };
      const answer = await client.execute(target, execution, request.call);
      return passThroughOrHandedOff(answer, answer.status, [ACTIVATION_ID_HEADER]);
    },
    {
      ...callerParts(runtime),
      admission: admissionOf(runtime),
      handOff: answerHandOff(runtime),
      executionTarget: executionTarget(client, checkedBy.target),
      pathParams,
      queryOf,
    },
  );
}
