/** POST /triggers/{name}: fires a trigger through its execution URL. */
import { callerRoute } from '../../lib/http/caller-route.js';
import { executionHandler } from '../../lib/http/execution-route.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';

export const handler = callerRoute(functionRoutes.fireTrigger, executionHandler('trigger'));
