/** ANY /actions/{name}: runs an action through its execution URL (contract section 7). */
import { executeForCaller, executionPathSchema, executionQuerySchema } from '../../lib/actions.js';
import { platformFunction } from '../../lib/runtime.js';

export const handler = platformFunction(
  { name: 'invokeAction', path: executionPathSchema, query: executionQuerySchema },
  (request, { functions }) => executeForCaller(functions, 'action', request),
);
