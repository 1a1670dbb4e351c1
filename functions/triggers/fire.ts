/** POST /triggers/{name}: fires a trigger through its execution URL. */
import {
  executeForCaller,
  executionPathSchema,
  executionQuerySchema,
  functionExecutionOf,
} from '../../lib/actions.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';

const functions = functionExecutionOf(getRuntime());

export const handler = platformFunction(
  { name: 'fireTrigger', path: executionPathSchema, query: executionQuerySchema },
  (request) => executeForCaller(functions, 'trigger', request),
);
