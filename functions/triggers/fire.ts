/** POST /triggers/{name}: fires a trigger through its execution URL. */
import { executeForCaller, functionExecutionOf } from '../../lib/actions.js';
import { functionRoutes } from '../../lib/routes/functions.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';

const functions = functionExecutionOf(getRuntime());

export const handler = platformFunction(functionRoutes.fireTrigger, (request) =>
  executeForCaller(functions, 'trigger', request),
);
