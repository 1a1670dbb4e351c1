/**
 * Admission against the usage plans (lib/usage/): after the caller is authenticated and
 * authorized and the input validated, before anything goes upstream, the caller's plan and the
 * account's must admit what the request spends (one request; the characters of `text` for the
 * APIs billed by them). Over a rate: 429/`420`; over a quota: 429/`400`; both with Retry-After.
 * A request refused before this counts nothing.
 *
 * Every answer to a caller under a plan carries the RateLimit fields: the handler's, and the
 * error envelope's (error-envelope.ts merges the request's response headers).
 *
 * Whatever can refuse a request without the platform is checked before (its input, its action
 * or trigger): such a refusal costs no call to the store. The plan counts what reached the
 * platform: an admitted request whose call never went out (a secret its handler could not
 * read; its deadline came first; the guard answered 504 first, answer-in-time.ts) gives its
 * quota units back, as does one whose call could not have reached the platform (refused,
 * DNS); the token it took of a rate stays taken, so that such requests are still held to the
 * rate. The call context marks a call going out (`RequestState.call`, as its request is
 * written).
 */
import { UpstreamUnreachableError } from '../../core/errors.ts';
import { admit, policyOf } from '../../usage/admission.ts';
import type { UsageGate } from '../../usage/gate.ts';
import type { Plans } from '../../usage/plan.ts';
import { ONE_REQUEST, type Units } from '../../usage/units.ts';
import type { RequestInput } from '../request-state.ts';
import { handedOffBytes } from '../responses.ts';
import type { HttpMiddleware } from './middleware.ts';

const NO_PLANS: Plans = { plan: undefined, accountPlan: undefined };
/** A handed-off answer costs a unit for each MB it starts, beside the request's own. */
const MB = 1024 * 1024;
const noop = () => {};

export function admission(gate: UsageGate, spends: (input: RequestInput) => Units): HttpMiddleware {
  return {
    before: async ({ event: state }) => {
      const caller = state.caller;
      if (!caller || !state.input) return;
      const admitting = admit(gate, {
        callerId: caller.id,
        plans: caller.plans ?? NO_PLANS,
        units: spends(state.input),
        metrics: state.metrics,
        log: state.log,
      }).then(async (admitted) => {
        if (!admitted.admitted) return admitted;
        // Kept by the gate, so that a give-back no answer waits for (the guard's) is not lost.
        // Its quota units only: the token it took stays, so that a flood of requests refused
        // after admission is still held to the rate.
        state.giveBack = () => gate.keep(admitted.giveBack({ keepToken: true }));
        state.charge = admitted.charge;
        // The guard answered while the units were being taken (answer-in-time.ts): nothing of
        // the request goes out now, and nobody else is left to give them back.
        if (state.abandoned && !state.sent) await state.giveBack();
        return admitted;
      });
      // The admission itself is kept too: until it ends, the gate cannot know of that give-back.
      void gate.keep(admitting.then(noop, noop));
      const admitted = await admitting;
      if (!admitted.admitted) throw admitted.error;
      Object.assign(state.responseHeaders, admitted.headers);
    },
    after: async ({ event: state, response }) => {
      if (!state.sent) await state.giveBack?.();
      const stored = response ? handedOffBytes(response) : undefined;
      if (stored !== undefined && state.charge) {
        Object.assign(state.responseHeaders, await state.charge(Math.ceil(stored / MB)));
      }
      if (response) response.headers = { ...response.headers, ...state.responseHeaders };
    },
    onError: async ({ event: state, error }) => {
      const caller = state.caller;
      if (!state.giveBack) {
        // Refused before it was admitted (its input, its target): its plans' policy, no call.
        if (caller?.plans) {
          const units = state.input ? spends(state.input) : ONE_REQUEST;
          Object.assign(
            state.responseHeaders,
            policyOf(gate, { callerId: caller.id, plans: caller.plans, units }),
          );
        }
        return;
      }
      // Nothing of it reached the platform: its units were not spent.
      const unreachable = error instanceof UpstreamUnreachableError && !error.maybeSent;
      if (!state.sent || unreachable) await state.giveBack();
    },
  };
}
