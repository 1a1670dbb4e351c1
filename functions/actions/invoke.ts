/** ANY /actions/{name}: runs an action through its execution URL. */
import { executionRoute } from '../../lib/http/execution-route.ts';
import { functionRoutes } from '../../lib/http/routes/functions.ts';

export const handler = executionRoute(functionRoutes.invokeAction);
