/**
 * The function of an execution route (ANY /actions/{name}, POST /triggers/{name}): the caller's
 * request run through the target's execution URL (lib/execution/caller.ts checks it first), and
 * the answer passed through with its activation id.
 */
import type { NamePath } from '../core/schemas.js';
import { ACTIVATION_ID_HEADER, executeForCaller } from '../execution/caller.js';
import { executionClientOf } from '../execution/client.js';
import type { ExecutionKind } from '../execution/targets.js';
import { getRuntime } from '../runtime.js';
import { platformFunction } from './platform-function.js';
import { bodyBytes } from './request.js';
import { passThrough } from './responses.js';
import type { ExecutionQuery } from './routes/functions.js';
import type { Route } from './routes/route.js';

export function executionFunction(
  route: Route<undefined, ExecutionQuery, NamePath>,
  kind: ExecutionKind,
) {
  // Built now, at cold start, so that a bad configuration fails the function's init.
  const client = executionClientOf(getRuntime());
  return platformFunction(route, async (request) => {
    const answer = await executeForCaller(
      client,
      {
        kind,
        name: request.path.name,
        method: request.method,
        result: request.query.result,
        body: bodyBytes(request.event),
        contentType: request.headers['content-type'],
      },
      request.budget,
    );
    return passThrough(answer, answer.status, [ACTIVATION_ID_HEADER]);
  });
}
