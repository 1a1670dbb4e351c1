import { describe, expect, it } from 'vitest';
import { CallerScopeError } from '../../../../../lib/core/errors.ts';
import { authorize } from '../../../../../lib/http/middleware/authorize.ts';
import type { RequestState } from '../../../../../lib/http/request-state.ts';
import { ownStack, stateOf } from './own-stack.ts';

/** A state whose caller holds these scopes, with these validated path parameters. */
function requestBy(scopes: string[], path: unknown = {}): RequestState {
  const { state } = stateOf();
  state.caller = { id: 'caller', scopes };
  state.path = path;
  return state;
}

const runs = async (template: Parameters<typeof authorize>[0], state: RequestState) => {
  let ran = false;
  await ownStack([authorize(template)], async () => {
    ran = true;
    return { statusCode: 200 };
  })(state).catch((error: unknown) => {
    if (!(error instanceof CallerScopeError)) throw error;
  });
  return ran;
};

describe('authorize', () => {
  it("lets through a caller holding the route's scope, its area's wildcard, or *", async () => {
    expect(await runs('jobs:read', requestBy(['jobs:read']))).toBe(true);
    expect(await runs('catalogue:maps', requestBy(['catalogue:*']))).toBe(true);
    expect(await runs('jobs:stop', requestBy(['*']))).toBe(true);
  });

  it('refuses a caller without it with 403/210 naming the scope, before the handler runs', async () => {
    const state = requestBy(['jobs:read', 'jobs:stop']);
    const refused = ownStack([authorize('jobs:cancel')])(state);
    await expect(refused).rejects.toBeInstanceOf(CallerScopeError);
    await expect(refused).rejects.toMatchObject({
      status: 403,
      code: '210',
      details: 'This caller lacks the scope "jobs:cancel".',
    });
    expect(await runs('jobs:cancel', state)).toBe(false);
  });

  it('builds a scope named by the path from the validated parameter: actions:{name}', async () => {
    const scopes = ['actions:echo'];
    expect(await runs('actions:{name}', requestBy(scopes, { name: 'echo' }))).toBe(true);
    expect(await runs('actions:{name}', requestBy(scopes, { name: 'hello' }))).toBe(false);
    expect(await runs('actions:{name}', requestBy(['actions:*'], { name: 'hello' }))).toBe(true);
    // A scope named by the path is never built without a validated name: a bug, not a grant.
    for (const path of [{}, { name: '' }, { name: 'a b' }]) {
      await expect(ownStack([authorize('actions:{name}')])(requestBy(['*'], path))).rejects.toThrow(
        'needs a validated {name}',
      );
    }
  });

  it('refuses a request with no caller (no caller check before it)', async () => {
    const { state } = stateOf();
    expect(await runs('jobs:read', state)).toBe(false);
  });
});
