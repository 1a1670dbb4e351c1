/**
 * The handler of an execution route (ANY /actions/{name}, POST /triggers/{name}): the caller's
 * request run through the target's execution URL (lib/execution/request.ts checks it first),
 * and the answer passed through with its activation id. The request line names the target.
 */
import type { NamePath } from '../core/schemas.ts';
import { executionClientOf } from '../execution/client.ts';
import { ACTIVATION_ID_HEADER, runExecutionRequest } from '../execution/request.ts';
import type { ExecutionKind } from '../execution/targets.ts';
import { getRuntime } from '../runtime.ts';
import type { CallerRouteHandler } from './caller-route.ts';
import { passThroughOrHandedOff } from './hand-off.ts';
import type { ExecutionQuery } from './routes/functions.ts';

export function executionHandler(
  kind: ExecutionKind,
): CallerRouteHandler<undefined, ExecutionQuery, NamePath> {
  // Built now, at cold start, so that a bad configuration fails the function's init.
  const client = executionClientOf(getRuntime());
  return async (request) => {
    request.target({ [kind]: request.path.name });
    const answer = await runExecutionRequest(
      client,
      {
        kind,
        name: request.path.name,
        method: request.method,
        result: request.query.result,
        body: request.bytes,
        contentType: request.headers['content-type'],
      },
      request.call,
    );
    return passThroughOrHandedOff(answer, answer.status, [ACTIVATION_ID_HEADER]);
  };
}
