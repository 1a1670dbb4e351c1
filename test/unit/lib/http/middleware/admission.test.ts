/**
 * Admission against the usage plans (lib/http/middleware/admission.ts), in a middy stack of its
 * own over a request's state, behind the error envelope and the input's validation as in every
 * route's stack, with a usage gate over the memory store (lib/usage/store.ts) on a fixed clock.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  CredentialsUnavailableError,
  MethodNotAllowedError,
  NotFoundError,
  type ServiceError,
  UpstreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../../../../lib/core/errors.ts';
import { createLogger } from '../../../../../lib/core/log.ts';
import { admission } from '../../../../../lib/http/middleware/admission.ts';
import { errorEnvelope } from '../../../../../lib/http/middleware/error-envelope.ts';
import { jsonBody } from '../../../../../lib/http/middleware/json-body.ts';
import { requestLog } from '../../../../../lib/http/middleware/request-log.ts';
import { validation } from '../../../../../lib/http/middleware/validation.ts';
import type { RequestInput, RequestState } from '../../../../../lib/http/request-state.ts';
import { json } from '../../../../../lib/http/responses.ts';
import type { PlanEntry } from '../../../../../lib/secrets/callers-schema.ts';
import { UsageGate } from '../../../../../lib/usage/gate.ts';
import type { Plans } from '../../../../../lib/usage/plan.ts';
import { usageReport } from '../../../../../lib/usage/report.ts';
import { memoryUsageStore, type UsageStore } from '../../../../../lib/usage/store.ts';
import { catalogueUnits } from '../../../../../lib/usage/units.ts';
import { type Handler, ownStack, stateOf } from './own-stack.ts';

/** 2026-11-25T10:00:00Z; the gate's clock stays there, so no token comes back by itself. */
const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);

/** A translation's body: its text is what the platform bills. */
const translateBody = z.strictObject({ text: z.string() });
const spends = (input: RequestInput) => catalogueUnits('translate', input.body);

/** A store that counts its calls. */
function countingStore(): UsageStore & { calls: number } {
  const inner = memoryUsageStore();
  const store = {
    calls: 0,
    take: (...args: Parameters<UsageStore['take']>) => {
      store.calls++;
      return inner.take(...args);
    },
    giveBack: (...args: Parameters<UsageStore['giveBack']>) => {
      store.calls++;
      return inner.giveBack(...args);
    },
    read: inner.read,
    peek: inner.peek,
  };
  return store;
}

function setup() {
  const store = countingStore();
  const gate = new UsageGate({
    store,
    onStoreFailure: 'closed',
    log: createLogger({}, () => {}),
    now: () => T0,
  });
  let handled = 0;
  /** One request of `caller` with these plans through the stack; the handler's outcome given. */
  const send = async (
    plans: Plans | undefined,
    outcome: Handler = async (given) => {
      sendsUpstream(given);
      return json(200, { translated: true });
    },
    body = '{"text":"hello"}',
    /** With the request log first, as in every stack: its lines in `logged`. */
    withLog = false,
  ) => {
    const { state, logged } = stateOf({ body, headers: { 'content-type': 'application/json' } });
    state.caller = { id: 'translator', scopes: ['catalogue:translate'], plans };
    const stack = ownStack(
      [
        ...(withLog ? [requestLog('translate')] : []),
        errorEnvelope(),
        jsonBody(),
        validation({ body: translateBody }),
        admission(gate, spends),
      ],
      async (given: RequestState) => {
        handled++;
        return outcome(given);
      },
    );
    const response = await stack(state);
    return { response, state, logged };
  };
  /** What the caller's plan has counted today. */
  const today = async (plans: Plans) => (await usageReport(gate, 'translator', plans)).caller.day;
  return { store, gate, send, today, handled: () => handled };
}

const plan = (entry: PlanEntry): Plans => ({ plan: entry, accountPlan: undefined });
/** What the upstream client does before it sends a request's call: marks it gone out. */
const sendsUpstream = (state: RequestState) => state.call().onSend?.();
/** A handler whose call went out, then failed with this error; or failed before it went out. */
const failing =
  (error: ServiceError, sent = true) =>
  async (state: RequestState) => {
    if (sent) sendsUpstream(state);
    throw error;
  };

describe('admission', () => {
  it('lets a request its plans admit through, counted, and its answer carries the RateLimit fields', async () => {
    const { send, today, handled } = setup();
    const plans = plan({ rateRps: 5, burst: 10, dayQuotaRequest: 100 });
    const { response } = await send(plans);
    expect(response.statusCode).toBe(200);
    expect(handled()).toBe(1);
    expect(response.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(response.headers?.['RateLimit-Policy']).toBe(
      '"caller-rate";q=5;w=1;pgw-burst=10, "caller-day";q=100;w=86400',
    );
    expect(response.headers?.RateLimit).toMatch(
      /^"caller-rate";r=9;t=\d+, "caller-day";r=99;t=\d+$/,
    );
    expect((await today(plans)).requests).toBe(1);
  });

  it('counts what the request spends: the characters of its text, for the APIs billed by them', async () => {
    const { send, today } = setup();
    const plans = plan({ dayQuotaCharacters: { translate: 10 } });
    expect((await send(plans, undefined, '{"text":"hello"}')).response.statusCode).toBe(200);
    expect((await today(plans)).characters.translate).toBe(5);
    // Six more would go over the ten: refused before anything runs.
    const { response } = await send(plans, undefined, '{"text":"world!"}');
    expect(response.statusCode).toBe(429);
    expect((await today(plans)).characters.translate).toBe(5);
  });

  it('refuses a request over a quota with 429/400, Retry-After and the RateLimit fields; the handler never runs', async () => {
    const { send, today, handled } = setup();
    const plans = plan({ dayQuotaRequest: 1 });
    await send(plans);
    const { response, logged } = await send(plans, undefined, undefined, true);
    expect(handled()).toBe(1);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body ?? '')).toMatchObject({
      error: { errorCode: '400', message: 'Quota Exceeded' },
    });
    // Until the UTC day ends: 14 hours.
    expect(response.headers).toMatchObject({
      'Retry-After': String(14 * 3600),
      'RateLimit-Policy': '"caller-day";q=1;w=86400',
      RateLimit: `"caller-day";r=0;t=${14 * 3600}`,
    });
    expect(logged().find((line) => line.message === 'request')).toMatchObject({
      errorCode: '400',
      reason: 'quota-exceeded caller dayQuotaRequest',
    });
    // A refused request counts nothing.
    expect((await today(plans)).requests).toBe(1);
  });

  it('refuses a request over the rate with 429/420 and the time until the next token', async () => {
    const { send } = setup();
    const plans = plan({ rateRps: 2, burst: 1 });
    expect((await send(plans)).response.statusCode).toBe(200);
    const { response, state } = await send(plans);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body ?? '').error.errorCode).toBe('420');
    expect(response.headers).toMatchObject({
      'Retry-After': '1',
      'RateLimit-Policy': '"caller-rate";q=2;w=1;pgw-burst=1',
    });
    expect(state.metrics.take('translate')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Plan: 'caller', Limit: 'rateRps', UsageRefusals: 1 }),
      ]),
    );
  });

  it('puts the RateLimit fields on an error answer too', async () => {
    const { send } = setup();
    // A rate of 100 a second keeps the caller on one item: its remaining count is exact.
    const plans = plan({ rateRps: 100, dayQuotaRequest: 100 });
    const upstream = new UpstreamError({ status: 400, code: 'N2MT05', message: 'Bad text' });
    const { response } = await send(plans, failing(upstream));
    expect(response.statusCode).toBe(400);
    expect(response.headers).toMatchObject({
      'RateLimit-Policy': '"caller-rate";q=100;w=1;pgw-burst=100, "caller-day";q=100;w=86400',
      RateLimit: expect.stringMatching(/^"caller-rate";r=99;t=\d+, "caller-day";r=99;t=\d+$/),
    });
  });

  it('gives the units back when the upstream call could not have reached the platform', async () => {
    const { send, today } = setup();
    const plans = plan({ dayQuotaRequest: 1 });
    const refused = new UpstreamUnreachableError(new Error('connect ECONNREFUSED'), false);
    const { response } = await send(plans, failing(refused));
    expect(response.statusCode).toBe(503);
    expect((await today(plans)).requests).toBe(0);
    // The one request of the day is still there to spend.
    expect((await send(plans)).response.statusCode).toBe(200);
  });

  it.each([
    ['a reset after sending', new UpstreamUnreachableError(new Error('ECONNRESET'), true)],
    ['a timeout', new UpstreamTimeoutError()],
    ["the platform's own error", new UpstreamError({ status: 500, code: '900', message: 'x' })],
  ])(
    'keeps the units counted after %s: the platform may have had the request',
    async (_, error) => {
      const { send, today } = setup();
      const plans = plan({ dayQuotaRequest: 5 });
      await send(plans, failing(error));
      expect((await today(plans)).requests).toBe(1);
    },
  );

  it.each([
    ['an unknown action', new NotFoundError('No action named nope')],
    ['a method the target does not take', new MethodNotAllowedError(['POST'])],
    ['a secret it could not read', new CredentialsUnavailableError(1)],
    ['its deadline before the send', new UpstreamTimeoutError()],
  ])(
    'gives the units back when the handler refuses before anything went out: %s',
    async (_, error) => {
      const { send, today } = setup();
      const plans = plan({ dayQuotaRequest: 1 });
      const { response } = await send(plans, failing(error, false));
      expect(response.statusCode).toBe(error.status);
      expect(response.headers?.['RateLimit-Policy']).toBe('"caller-day";q=1;w=86400');
      expect((await today(plans)).requests).toBe(0);
      expect((await send(plans)).response.statusCode).toBe(200);
    },
  );

  it('gives the units back of a request answered before its call went out, and sends nothing after', async () => {
    const { send, today, gate } = setup();
    const plans = plan({ dayQuotaRequest: 1 });
    let late: unknown;
    const { response } = await send(plans, async (state) => {
      // The guard answered (answer-in-time.ts); the work goes on, and would send now.
      state.calls.answered();
      try {
        sendsUpstream(state);
      } catch (error) {
        late = error;
        throw error;
      }
      return json(200, {});
    });
    expect(late).toBeInstanceOf(UpstreamTimeoutError);
    expect(response.statusCode).toBe(504);
    await gate.settled();
    expect((await today(plans)).requests).toBe(0);
  });

  it('gives back the units of a request the guard answered while they were being taken, and the gate waits for it', async () => {
    const inner = memoryUsageStore();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: UsageStore = {
      ...inner,
      take: async (...args) => {
        await held;
        return inner.take(...args);
      },
      giveBack: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return inner.giveBack(...args);
      },
    };
    const gate = new UsageGate({
      store,
      onStoreFailure: 'closed',
      log: createLogger({}, () => {}),
      now: () => T0,
    });
    const plans = plan({ dayQuotaRequest: 1 });
    const { state } = stateOf({
      body: '{"text":"hello"}',
      headers: { 'content-type': 'application/json' },
    });
    state.caller = { id: 'translator', scopes: ['catalogue:translate'], plans };
    const stack = ownStack(
      [errorEnvelope(), jsonBody(), validation({ body: translateBody }), admission(gate, spends)],
      async (given: RequestState) => {
        sendsUpstream(given);
        return json(200, {});
      },
    );
    const answered = stack(state);
    // The units are being taken (the store is slow) when the guard answers (answer-in-time.ts).
    await new Promise((resolve) => setImmediate(resolve));
    state.calls.answered();
    const settled = gate.settled();
    release();
    await settled;
    // Settled means done: the units were taken back, not just about to be (the store takes
    // 20 ms to give them back).
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await usageReport(gate, 'translator', plans)).caller.day.requests).toBe(0);
    expect((await answered).statusCode).toBe(504);
  });

  it('keeps the units of a request that succeeded', async () => {
    const { send, today } = setup();
    const plans = plan({ dayQuotaRequest: 5 });
    await send(plans);
    expect((await today(plans)).requests).toBe(1);
  });

  it('costs a caller without a plan nothing while there is no account plan: no store call, no field', async () => {
    const { send, store } = setup();
    for (const plans of [undefined, { plan: undefined, accountPlan: undefined }]) {
      const { response } = await send(plans);
      expect(response.statusCode).toBe(200);
      expect(response.headers?.['RateLimit-Policy']).toBeUndefined();
      expect(response.headers?.RateLimit).toBeUndefined();
    }
    expect(store.calls).toBe(0);
  });

  it("holds every caller to the account's plan, under the account's name", async () => {
    const { send } = setup();
    const plans: Plans = { plan: undefined, accountPlan: { dayQuotaRequest: 1 } };
    expect((await send(plans)).response.headers?.['RateLimit-Policy']).toBe(
      '"account-day";q=1;w=86400',
    );
    const { response } = await send(plans);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body ?? '').error.details).toContain('account plan');
  });

  it('counts nothing of a request refused before it: bad input never reaches the plans', async () => {
    const { send, store, handled } = setup();
    const { response } = await send(plan({ dayQuotaRequest: 1 }), undefined, '{"txt":"hello"}');
    expect(response.statusCode).toBe(400);
    expect(handled()).toBe(0);
    expect(store.calls).toBe(0);
  });

  it('judges only validated input: without it (no validation before), nothing is spent', async () => {
    const { store, gate } = setup();
    const { state } = stateOf({ body: '{"text":"x"}' });
    state.caller = { id: 'translator', scopes: ['*'], plans: plan({ dayQuotaRequest: 1 }) };
    const response = await ownStack([errorEnvelope(), admission(gate, spends)])(state);
    expect(response.statusCode).toBe(200);
    expect(store.calls).toBe(0);
  });

  it('admits nothing without a caller: a route with no caller check spends no plan', async () => {
    const { store, gate } = setup();
    const { state } = stateOf({ body: '{"text":"x"}' });
    const response = await ownStack([errorEnvelope(), validation({}), admission(gate, spends)])(
      state,
    );
    expect(response.statusCode).toBe(200);
    expect(store.calls).toBe(0);
  });
});
