/** ANY /actions/{name}: runs an action through its execution URL. */
import {
  executeForCaller,
  executionPathSchema,
  executionQuerySchema,
  functionExecutionOf,
} from '../../lib/actions.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';

const functions = functionExecutionOf(getRuntime());

export const handler = platformFunction(
  { name: 'invokeAction', path: executionPathSchema, query: executionQuerySchema },
  (request) => executeForCaller(functions, 'action', request),
);
