/**
 * Admission against the usage plans (lib/usage/): after the caller is authenticated and
 * authorized and the input validated, before anything goes upstream, the caller's plan and the
 * account's must admit what the request spends (one request; the characters of `text` for the
 * APIs billed by them). Over a rate: 429/`420`; over a quota: 429/`400`; both with Retry-After.
 * A request refused before this counts nothing.
 *
 * Every answer to a caller under a plan carries the RateLimit fields: the handler's, and the
 * error envelope's (error-envelope.ts merges the request's response headers). A request whose
 * upstream call could not have reached the platform (refused, DNS) gives its units back.
 */
import { UpstreamUnreachableError } from '../../core/errors.js';
import type { UsageGate } from '../../usage/gate.js';
import type { Plans } from '../../usage/plan.js';
import type { Units } from '../../usage/units.js';
import type { RequestInput } from '../request-state.js';
import type { HttpMiddleware } from './middleware.js';

const NO_PLANS: Plans = { plan: undefined, accountPlan: undefined };

export function admission(gate: UsageGate, spends: (input: RequestInput) => Units): HttpMiddleware {
  return {
    before: async ({ event: state }) => {
      const caller = state.caller;
      if (!caller || !state.input) return;
      const admitted = await gate.admit({
        callerId: caller.id,
        plans: caller.plans ?? NO_PLANS,
        units: spends(state.input),
        metrics: state.metrics,
        log: state.log,
      });
      if (!admitted.admitted) throw admitted.error;
      Object.assign(state.responseHeaders, admitted.headers);
      state.giveBack = admitted.giveBack;
    },
    after: ({ event: state, response }) => {
      if (response) response.headers = { ...response.headers, ...state.responseHeaders };
    },
    onError: async ({ event: state, error }) => {
      // Nothing of it reached the platform: its units were not spent.
      if (error instanceof UpstreamUnreachableError && !error.maybeSent) await state.giveBack?.();
    },
  };
}
