/**
 * The action or trigger a route runs (`checkedBy: { target }` in the registry): the one its path
 * names, found in the secret, then the method and the body checked against it (404/`300`,
 * 405 with `Allow`, 400/`100`). It runs before admission, so that a request refused for any of
 * them costs no call to the usage table. The request line names the target; the handler gets
 * the checked execution as its body.
 */
import type { NamePath } from '../../core/schemas.ts';
import type { ExecutionClient } from '../../execution/client.ts';
import { checkExecution } from '../../execution/request.ts';
import type { ExecutionKind } from '../../execution/targets.ts';
import type { HttpMiddleware } from './middleware.ts';

export function executionTarget(client: ExecutionClient, kind: ExecutionKind): HttpMiddleware {
  return {
    before: async ({ event: state }) => {
      const { name } = state.path as NamePath;
      state.target({ [kind]: name });
      const execution = await checkExecution(client, {
        kind,
        name,
        method: state.method,
        body: state.body.bytes(),
        contentType: state.headers['content-type'],
      });
      // The validated input, completed: the body is the execution checked against its target.
      state.input = { path: state.path, query: state.input?.query, body: execution };
    },
  };
}
