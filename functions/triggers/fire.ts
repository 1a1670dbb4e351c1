/** POST /triggers/{name}: fires a trigger through its execution URL. */
import { ACTIVATION_ID_HEADER, executeForCaller } from '../../lib/execution/caller.js';
import { executionClientOf } from '../../lib/execution/client.js';
import { platformFunction } from '../../lib/http/platform-function.js';
import { bodyBytes } from '../../lib/http/request.js';
import { passThrough } from '../../lib/http/responses.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';
import { getRuntime } from '../../lib/runtime.js';

const client = executionClientOf(getRuntime());

export const handler = platformFunction(functionRoutes.fireTrigger, async (request) => {
  const answer = await executeForCaller(
    client,
    {
      kind: 'trigger',
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
