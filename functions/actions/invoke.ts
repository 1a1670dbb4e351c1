/** ANY /actions/{name}: runs an action through its execution URL. */
import { executionFunction } from '../../lib/http/execution-function.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';

export const handler = executionFunction(functionRoutes.invokeAction, 'action');
