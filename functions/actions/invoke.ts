/** ANY /actions/{name}: runs an action through its execution URL. */
import { callerRoute } from '../../lib/http/caller-route.ts';
import { executionHandler } from '../../lib/http/execution-route.ts';
import { answerHandOff } from '../../lib/http/hand-off.ts';
import { functionRoutes } from '../../lib/http/routes/functions.ts';
import { getRuntime } from '../../lib/runtime.ts';

export const handler = callerRoute(functionRoutes.invokeAction, executionHandler('action'), {
  handOff: answerHandOff(getRuntime()),
});
