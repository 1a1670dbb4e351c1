import { describe, expect, it } from 'vitest';
import { ExecutionClient } from '../../../../../lib/execution/client.ts';
import { executionTarget } from '../../../../../lib/http/middleware/execution-target.ts';
import { SecretStore } from '../../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../../lib/upstream/dispatch.ts';
import { memorySecretSource } from '../../../../helpers/secret-source.ts';
import { ownStack, stateOf } from './own-stack.ts';

// Checking a target sends nothing: the client's connection pool is never used.
const secrets = new SecretStore(
  memorySecretSource({
    actions: { hello: { url: 'http://127.0.0.1:9/fx/hello' } },
    triggers: { nightly: { url: 'http://127.0.0.1:9/fx/nightly' } },
  }).source,
  { ttlMs: 60_000 },
);
const client = new ExecutionClient({
  secrets,
  vendor: 'platform',
  http: new UpstreamClient({ dispatcher: createDispatcher(), timeoutMs: 1_000 }),
});

/** The state of a request to `name`, its path already checked, with this method and body. */
function requestTo(name: string, method: string, body?: string) {
  const { state, logged } = stateOf({
    method,
    pathParameters: { name },
    body,
    headers: { 'content-type': body === undefined ? undefined : 'application/json' },
  });
  state.path = { name };
  return { state, logged };
}

describe('executionTarget', () => {
  it('gives the handler the execution checked against its target, and names it on the request line', async () => {
    const { state } = requestTo('hello', 'POST', '{"n":1}');
    let seen: unknown;
    await ownStack([executionTarget(client, 'action')], async (s) => {
      seen = s.input?.body;
      return { statusCode: 200 };
    })(state);
    expect(seen).toMatchObject({ target: { kind: 'action', name: 'hello' }, body: '{"n":1}' });
    expect(state.targetFields()).toEqual({ action: 'hello' });
  });

  it('refuses a name the secret does not hold with 404/300, before the handler', async () => {
    const { state } = requestTo('missing', 'POST', '{}');
    let ran = false;
    const refused = ownStack([executionTarget(client, 'trigger')], async () => {
      ran = true;
      return { statusCode: 200 };
    })(state);
    await expect(refused).rejects.toMatchObject({ status: 404, code: '300' });
    expect(ran).toBe(false);
  });

  it('refuses a method the target does not take with 405, and a body that is not an object with 400/100', async () => {
    await expect(
      ownStack([executionTarget(client, 'trigger')])(requestTo('nightly', 'DELETE').state),
    ).rejects.toMatchObject({ status: 405 });
    await expect(
      ownStack([executionTarget(client, 'action')])(requestTo('hello', 'POST', '[1]').state),
    ).rejects.toMatchObject({ status: 400, code: '100' });
  });
});
