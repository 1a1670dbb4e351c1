/** POST /triggers/{name}: fires a trigger through its execution URL. */
import { executeForCaller, functionExecutionOf } from '../../lib/execution/client.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';

const functions = functionExecutionOf(getRuntime());

export const handler = platformFunction(functionRoutes.fireTrigger, (request) =>
  executeForCaller(functions, 'trigger', request),
);
