import { describe, expect, it } from 'vitest';
import { CredentialsRefusedError } from '../../../../../lib/core/errors.ts';
import { createLogger } from '../../../../../lib/core/log.ts';
import type { UpstreamAnswer } from '../../../../../lib/upstream/client.ts';
import {
  type CredentialSource,
  refusesCredentials,
  sendRefreshingCredentials,
} from '../../../../../lib/upstream/gateway/credential-refresh.ts';
import { testCall } from '../../../../helpers/call-context.ts';

interface Keys {
  readonly key: string;
}

const answer = (
  status: number,
  body = '',
  headers: Record<string, string> = {},
): UpstreamAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(body),
  attempts: 1,
});
const AUTH_FAILED = answer(401, '{"error":{"errorCode":"200","message":"Authentication Failed"}}');

/** A source that hands out `current`, and `next` once refreshed; it counts its refreshes. */
function source(current: Keys, next: Keys = current) {
  const state = { refreshed: [] as Keys[], current };
  const credentials: CredentialSource<Keys> = {
    get: async () => state.current,
    refresh: async (previous) => {
      state.refreshed.push(previous);
      state.current = next;
      return next;
    },
  };
  return { credentials, state };
}

/** A gateway that answers by the key it was sent. */
function gateway(byKey: Record<string, UpstreamAnswer>) {
  const sent: string[] = [];
  return {
    sent,
    send: async ({ key }: Keys) => {
      sent.push(key);
      return byKey[key] ?? answer(500);
    },
  };
}

/** What every send names besides its credentials and its sender; `lines` is what it logged. */
function callOptions() {
  const lines: string[] = [];
  const call = testCall({ log: createLogger({}, (line) => lines.push(line)) });
  return { options: { vendor: 'platform', what: 'the test keys', call }, lines };
}
const { options } = callOptions();

describe('sendRefreshingCredentials', () => {
  it('sends once with the current keys when they are taken', async () => {
    const { credentials, state } = source({ key: 'a' });
    const { send, sent } = gateway({ a: answer(200, '{}') });
    expect((await sendRefreshingCredentials({ credentials, send, ...options })).status).toBe(200);
    expect(sent).toEqual(['a']);
    expect(state.refreshed).toEqual([]);
  });

  it('fetches the keys again when the gateway refuses them, and sends once more with new ones', async () => {
    const { credentials, state } = source({ key: 'old' }, { key: 'rotated' });
    const { send, sent } = gateway({ old: AUTH_FAILED, rotated: answer(200, '{}') });
    expect((await sendRefreshingCredentials({ credentials, send, ...options })).status).toBe(200);
    expect(sent).toEqual(['old', 'rotated']);
    expect(state.refreshed).toEqual([{ key: 'old' }]);
  });

  it("a refusal that stands, the keys fetched again being the same, is the operator's 500/900, sending nothing more", async () => {
    const { credentials } = source({ key: 'a' }, { key: 'a' });
    const { send, sent } = gateway({ a: AUTH_FAILED });
    const { options: counted, lines } = callOptions();
    const thrown = await sendRefreshingCredentials({ credentials, send, ...counted }).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(CredentialsRefusedError);
    expect(thrown).toMatchObject({
      status: 500,
      code: '900',
      refusal: { status: 401, code: '200' },
      reason: 'credentials-refused 401/200',
    });
    expect((thrown as CredentialsRefusedError).details).toMatch(
      /^The platform refused this service's own credentials \(the test keys\)\. Its operator must correct the secret/,
    );
    expect(sent).toEqual(['a']);
    // One line for the operator, carrying the alarm's metric.
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'error',
      credentials: 'the test keys',
      upstreamStatus: 401,
      upstreamErrorCode: '200',
      Cause: 'credentials',
      ConfigurationErrors: 1,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'PlatformGateway',
            Dimensions: [['Cause']],
            Metrics: [{ Name: 'ConfigurationErrors', Unit: 'Count' }],
          },
        ],
      },
    });
  });

  it("sends no more than twice, and the new keys refused too are the operator's", async () => {
    const { credentials } = source({ key: 'old' }, { key: 'also-bad' });
    const { send, sent } = gateway({ old: AUTH_FAILED, 'also-bad': AUTH_FAILED });
    await expect(sendRefreshingCredentials({ credentials, send, ...options })).rejects.toThrow(
      CredentialsRefusedError,
    );
    expect(sent).toEqual(['old', 'also-bad']);
  });

  it("refreshes for the gateway's 401/200 only; any 401, or a gateway's 403, is the operator's all the same", async () => {
    for (const refusal of [
      answer(401, '{"error":{"errorCode":"210","message":"Permission Denied"}}'),
      answer(403, '{"error":{"errorCode":"210","message":"Permission Denied"}}', {
        'x-platform-apigw-response-origin': 'APIGW',
      }),
      answer(401, 'Unauthorized'),
    ]) {
      const { credentials, state } = source({ key: 'a' }, { key: 'b' });
      const { send } = gateway({ a: refusal });
      await expect(sendRefreshingCredentials({ credentials, send, ...options })).rejects.toThrow(
        CredentialsRefusedError,
      );
      expect(state.refreshed).toEqual([]);
    }
  });

  it("passes an API's own 403 (its answer to the input) and any other error on as they are", async () => {
    for (const other of [
      answer(403, ''),
      answer(403, '', { 'x-platform-apigw-response-origin': 'ENDPOINT' }),
      answer(429, '{"error":{"errorCode":"420","message":"Rate Limited"}}'),
      answer(404, '{"error":{"errorCode":"300","message":"Not Found Exception"}}'),
    ]) {
      const { credentials } = source({ key: 'a' });
      const { send } = gateway({ a: other });
      expect(await sendRefreshingCredentials({ credentials, send, ...options })).toBe(other);
    }
  });

  it('first sends once more with the same keys when the refusal says so (a clock found off)', async () => {
    const { credentials, state } = source({ key: 'a' }, { key: 'b' });
    let tries = 0;
    const sent: string[] = [];
    const answered = await sendRefreshingCredentials({
      credentials,
      send: async ({ key }) => {
        sent.push(key);
        tries += 1;
        return tries === 1 ? AUTH_FAILED : answer(200, '{}');
      },
      retryWithSameCredentials: (refusal) => refusal === AUTH_FAILED,
      ...options,
    });
    expect(answered.status).toBe(200);
    expect(sent).toEqual(['a', 'a']);
    expect(state.refreshed).toEqual([]);
  });
});

describe('refusesCredentials', () => {
  it.each([
    [answer(401, ''), true],
    [answer(401, '{"error":{"errorCode":"200","message":"Authentication Failed"}}'), true],
    [answer(403, '{"error":{"errorCode":"210","message":"Permission Denied"}}'), false],
    [answer(403, '', { 'x-platform-apigw-response-origin': 'APIGW' }), true],
    [answer(403, ''), false],
    [answer(400, '{"error":{"errorCode":"100","message":"Bad Request Exception"}}'), false],
    [answer(200, '{}'), false],
  ])('%#: %j', (refusal, expected) => {
    expect(refusesCredentials(refusal, 'platform')).toBe(expected);
  });
});
