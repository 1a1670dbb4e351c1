import { describe, expect, it } from 'vitest';
import type { UpstreamAnswer } from '../../../../../lib/upstream/client.js';
import {
  type CredentialSource,
  sendRefreshingCredentials,
} from '../../../../../lib/upstream/gateway/credential-refresh.js';

interface Keys {
  readonly key: string;
}

const answer = (status: number, body = ''): UpstreamAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
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

describe('sendRefreshingCredentials', () => {
  it('sends once with the current keys when they are taken', async () => {
    const { credentials, state } = source({ key: 'a' });
    const { send, sent } = gateway({ a: answer(200, '{}') });
    expect((await sendRefreshingCredentials({ credentials, send })).status).toBe(200);
    expect(sent).toEqual(['a']);
    expect(state.refreshed).toEqual([]);
  });

  it('fetches the keys again when the gateway refuses them, and sends once more with new ones', async () => {
    const { credentials, state } = source({ key: 'old' }, { key: 'rotated' });
    const { send, sent } = gateway({ old: AUTH_FAILED, rotated: answer(200, '{}') });
    expect((await sendRefreshingCredentials({ credentials, send })).status).toBe(200);
    expect(sent).toEqual(['old', 'rotated']);
    expect(state.refreshed).toEqual([{ key: 'old' }]);
  });

  it('answers the refusal, sending nothing more, when the fetched keys are the same values', async () => {
    const { credentials } = source({ key: 'a' }, { key: 'a' });
    const { send, sent } = gateway({ a: AUTH_FAILED });
    expect(await sendRefreshingCredentials({ credentials, send })).toBe(AUTH_FAILED);
    expect(sent).toEqual(['a']);
  });

  it('sends no more than twice, even when the new keys are refused too', async () => {
    const { credentials } = source({ key: 'old' }, { key: 'also-bad' });
    const { send, sent } = gateway({ old: AUTH_FAILED, 'also-bad': AUTH_FAILED });
    expect((await sendRefreshingCredentials({ credentials, send })).status).toBe(401);
    expect(sent).toEqual(['old', 'also-bad']);
  });

  it("refreshes for the gateway's 401/200 only: not another 401, nor a 403", async () => {
    for (const refusal of [
      answer(401, '{"error":{"errorCode":"210","message":"Permission Denied"}}'),
      answer(403, '{"error":{"errorCode":"200","message":"x"}}'),
      answer(401, 'Unauthorized'),
    ]) {
      const { credentials, state } = source({ key: 'a' }, { key: 'b' });
      const { send } = gateway({ a: refusal });
      expect(await sendRefreshingCredentials({ credentials, send })).toBe(refusal);
      expect(state.refreshed).toEqual([]);
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
    });
    expect(answered.status).toBe(200);
    expect(sent).toEqual(['a', 'a']);
    expect(state.refreshed).toEqual([]);
  });
});
