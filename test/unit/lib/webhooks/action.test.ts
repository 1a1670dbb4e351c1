/**
 * The consumer's run step, with real parts: the execution client over undici against a loopback
 * action the test scripts, the secret in memory, the body store on a loopback S3. Which action
 * an invocation names (or why none can run), and the one call to it, counted where it reached
 * the platform.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../lib/core/call-context.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { Metrics } from '../../../../lib/core/metrics.ts';
import { ExecutionClient } from '../../../../lib/execution/client.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../lib/upstream/dispatch.ts';
import type { Dispatcher } from '../../../../lib/upstream/undici.ts';
import type { Units } from '../../../../lib/usage/units.ts';
import { type ActionDeps, callAction, resolveAction } from '../../../../lib/webhooks/action.ts';
import { s3BodyStore } from '../../../../lib/webhooks/body-store.ts';
import { invocationSchema } from '../../../../lib/webhooks/invocation.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';
import { type S3StandIn, startS3StandIn } from './s3-stand-in.ts';

describe('the run step (action.ts)', () => {
  let action: ScriptedServer;
  let closedUrl: string;
  let s3: S3StandIn;
  let dispatcher: Dispatcher;
  let deps: ActionDeps;
  let recorded: Units[];
  let call: CallContext;

  beforeAll(async () => {
    action = await startScriptedServer();
    const closed = await startScriptedServer();
    closedUrl = closed.url.href;
    await closed.close();
    s3 = await startS3StandIn();
    dispatcher = createDispatcher();
  });
  afterAll(async () => {
    await dispatcher.close();
    await action.close();
    await s3.close();
  });
  beforeEach(() => {
    action.received.length = 0;
    action.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    const secrets = new SecretStore(
      memorySecretSource({
        actions: {
          hello: { url: `${action.url.href}fx/hello` },
          safe: { url: `${action.url.href}fx/safe`, idempotent: true },
          gone: { url: `${closedUrl}fx/gone` },
        },
        webhooks: { demo: { secret: 'whsec_LGZvD+lrGSqN7iOBVynzvIQhL0Yfn3E+', action: 'hello' } },
      }).source,
      { ttlMs: 60_000 },
    );
    recorded = [];
    deps = {
      execution: new ExecutionClient({
        secrets,
        vendor: 'platform',
        http: new UpstreamClient({ dispatcher, timeoutMs: 10_000 }),
      }),
      webhooks: secrets,
      bodies: s3BodyStore({ bucket: 'bodies', client: s3.client() }),
      usage: {
        record: async (units) => {
          recorded.push(units);
        },
      },
    };
    const log = createLogger({}, () => {});
    call = { remainingMs: () => 90_000, metrics: new Metrics(), log };
  });

  const invocation = (value: object) => invocationSchema.parse(value);
  const targetOf = async (name: string) => {
    const target = await resolveAction(invocation({ action: name }), deps);
    if (typeof target === 'string') throw new Error(target);
    return target;
  };

  describe('resolveAction', () => {
    it("finds the invocation's action in the secret, with whether it is idempotent", async () => {
      expect(await targetOf('hello')).toMatchObject({ name: 'hello', idempotent: false });
      expect(await targetOf('safe')).toMatchObject({ name: 'safe', idempotent: true });
    });

    it('says why an invocation can never run: an unknown action, a removed webhook', async () => {
      expect(await resolveAction(invocation({ action: 'nope' }), deps)).toBe(
        'no action named "nope"',
      );
      const orphan = invocation({ action: 'hello', source: { webhook: 'removed', id: 'msg_1' } });
      expect(await resolveAction(orphan, deps)).toBe('the webhook "removed" is not in the secret');
      // Where the consumer may not read the webhooks, the receiver alone stops a webhook.
      expect(await resolveAction(orphan, { ...deps, webhooks: undefined })).toMatchObject({
        name: 'hello',
      });
    });
  });

  describe('callAction', () => {
    it('POSTs the params, blocking for the result, with the delivery key as its id, and counts it', async () => {
      const outcome = await callAction(
        invocation({ action: 'hello', params: { name: 'Ada' } }),
        await targetOf('hello'),
        'demo:msg_1',
        deps,
        call,
      );
      expect(outcome).toEqual({ kind: 'succeeded', status: 200 });
      const [sent] = action.received;
      expect(sent?.url).toBe('/fx/hello?blocking=true&result=true');
      expect(JSON.parse(sent?.body.toString() ?? '')).toEqual({ name: 'Ada' });
      expect(sent?.headers['x-delivery-id']).toBe('demo:msg_1');
      expect(recorded).toHaveLength(1);
    });

    it('sends params kept in the body store, and refuses them where there is none', async () => {
      const params = { text: 'x'.repeat(1000) };
      const paramsRef = await deps.bodies!.put('demo:msg_big', JSON.stringify(params));
      const big = invocation({ action: 'hello', paramsRef });
      const target = await targetOf('hello');
      expect(await callAction(big, target, 'demo:msg_big', deps, call)).toMatchObject({
        kind: 'succeeded',
      });
      expect(JSON.parse(action.received[0]?.body.toString() ?? '')).toEqual(params);
      expect(
        await callAction(big, target, 'demo:msg_big', { ...deps, bodies: undefined }, call),
      ).toEqual({ kind: 'refused', reason: 'no body store for its params' });
      expect(action.received).toHaveLength(1);
    });

    it('counts a call the gateway answered, and none that reached nothing', async () => {
      action.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error', 'APIGW');
      expect(
        await callAction(invocation({ action: 'hello' }), await targetOf('hello'), 'k', deps, call),
      ).toMatchObject({ kind: 'not-sent' });
      expect(recorded).toHaveLength(1);
      expect(
        await callAction(invocation({ action: 'gone' }), await targetOf('gone'), 'k', deps, call),
      ).toEqual({ kind: 'not-sent', reason: 'the action could not be reached' });
      expect(recorded).toHaveLength(1);
    });
  });
});
