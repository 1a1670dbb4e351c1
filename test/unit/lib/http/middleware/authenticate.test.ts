import { describe, expect, it } from 'vitest';
import { CallerAuthError } from '../../../../../lib/core/errors.ts';
import { secretCallers } from '../../../../../lib/http/callers.ts';
import { authenticate } from '../../../../../lib/http/middleware/authenticate.ts';
import { errorEnvelope } from '../../../../../lib/http/middleware/error-envelope.ts';
import { requestLog } from '../../../../../lib/http/middleware/request-log.ts';
import { ownStack, stateOf } from './own-stack.ts';

const TOKEN = 'reader-token-0000000000000000000000000';

/** The callers of an in-memory secret, fetched just now. */
const identify = secretCallers({
  load: async () => ({
    value: { callers: [{ id: 'reader', token: TOKEN, scopes: ['jobs:read'] }] },
    fetchedAt: Date.now(),
  }),
  maxAgeMs: 60_000,
  retryInMs: () => 0,
  now: Date.now,
});

describe('authenticate', () => {
  it("puts the caller on the request's state, its id on the request's logger, and counts the request for it", async () => {
    const { state, logged } = stateOf({ headers: { authorization: `Bearer ${TOKEN}` } });
    let seen: unknown;
    const handle = ownStack([authenticate(identify, 'POST /jobs/search')], async (s) => {
      seen = s.caller;
      s.log.info('in the handler');
      return { statusCode: 200 };
    });
    await handle(state);
    expect(seen).toMatchObject({ id: 'reader', scopes: ['jobs:read'] });
    expect(logged()).toEqual([
      expect.objectContaining({ message: 'in the handler', caller: 'reader' }),
    ]);
    const [document] = state.metrics.take('test');
    expect(document).toMatchObject({
      Caller: 'reader',
      Route: 'POST /jobs/search',
      CallerRequests: 1,
    });
  });

  it('stops an unknown token with 401/200 before the handler runs, and never logs the token', async () => {
    const wrong = 'wrong-token-11111111111111111111111111';
    const { state, lines } = stateOf({ headers: { authorization: `Bearer ${wrong}` } });
    let ran = false;
    const handle = ownStack([authenticate(identify, 'POST /jobs/search')], async () => {
      ran = true;
      return { statusCode: 200 };
    });
    await expect(handle(state)).rejects.toBeInstanceOf(CallerAuthError);
    expect(ran).toBe(false);
    expect(state.caller).toBeUndefined();
    expect(state.metrics.take('test')).toEqual([]);
    // Answered and logged as the stack does: the envelope, the request line, no token.
    const answered = stateOf({ headers: { authorization: `Bearer ${wrong}` } });
    const result = await ownStack([
      requestLog('test'),
      errorEnvelope(),
      authenticate(identify, 'POST /jobs/search'),
    ])(answered.state);
    expect(result.statusCode).toBe(401);
    expect(answered.lines.join('\n')).not.toContain(wrong);
    expect(lines.join('\n')).not.toContain(wrong);
  });
});
