/** POST /triggers/{name}: fires a trigger through its execution URL. */
import { callerRoute } from '../../lib/http/caller-route.js';
import { executionHandler } from '../../lib/http/execution-route.js';
import { answerHandOff } from '../../lib/http/hand-off.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';
import { getRuntime } from '../../lib/runtime.js';

export const handler = callerRoute(functionRoutes.fireTrigger, executionHandler('trigger'), {
  handOff: answerHandOff(getRuntime()),
});
