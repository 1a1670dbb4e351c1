/**
 * Admission against the usage plans (lib/usage/): after the caller is authenticated and
 * authorized and the input validated, before anything goes upstream, the caller's plan and the
 * account's must admit what the request spends (one request; the characters of `text` for the
 * APIs billed by them). Over a rate: 429/`420`; over a quota: 429/`400`; both with Retry-After.
 *
 * Whatever can refuse a request without the platform is checked before (its input, its action
 * or trigger): such a refusal counts nothing, costs no call to the store, and carries its
 * plans' `RateLimit-Policy`. Every answer to an admitted request carries its RateLimit fields
 * (the request carries them, and the stack puts them on its answer: route-stack.ts).
 *
 * The plan counts what reached the platform: an admitted request whose call never went out (a
 * secret its handler could not read; its deadline came first; the guard answered 504 first)
 * gives its quota units back, as does one whose call could not have reached the platform
 * (refused, DNS); the token it took of a rate stays taken, so that such requests are still
 * held to the rate. Its calls tell whether one went out (request-calls.ts). An answer handed
 * off costs a unit more for each MB of it started.
 *
 * This module is the one place of the give-back. What it keeps of a request, its admission,
 * is in middy's `request.internal`.
 */
import { UpstreamUnreachableError } from '../../core/errors.ts';
import { type Admitted, admit, policyOf } from '../../usage/admission.ts';
import type { UsageGate } from '../../usage/gate.ts';
import type { Plans } from '../../usage/plan.ts';
import { ONE_REQUEST, type Units } from '../../usage/units.ts';
import type { RequestInput, RequestState } from '../request-state.ts';
import { handedOffBytes } from '../responses.ts';
import type { HttpMiddleware, HttpMiddyRequest } from './middleware.ts';

/** A handed-off answer costs a unit for each MB it starts, beside the request's own. */
const MB = 1024 * 1024;
const noop = () => {};

/** The request's admission, once admitted: kept in middy's `request.internal`. */
type Kept = HttpMiddyRequest<{ admitted?: Admitted }>;

export function admission(gate: UsageGate, spends: (input: RequestInput) => Units): HttpMiddleware {
  /** Its quota units go back; the token it took of a rate stays. Kept by the gate until done. */
  const giveBack = (admitted: Admitted) => gate.keep(admitted.giveBack({ keepToken: true }));

  /** The RateLimit-Policy of a request refused before it was admitted: no call. */
  const policyFor = (state: RequestState) => {
    const caller = state.caller;
    if (!caller?.plans) return;
    const units = state.input ? spends(state.input) : ONE_REQUEST;
    state.carried.carry(policyOf(gate, { callerId: caller.id, plans: caller.plans, units }));
  };

  return {
    before: (request: Kept) => {
      const state = request.event;
      const plans = state.caller?.plans;
      // No plan holds the caller: nothing to take, and no promise to wait for.
      if (!plans || (!plans.plan && !plans.accountPlan) || !state.input) return;
      return admitOne(request, plans, state.input);
    },
    after: (request: Kept) => {
      const admitted = request.internal.admitted;
      return admitted && settle(request, admitted);
    },
    onError: async (request: Kept) => {
      const admitted = request.internal.admitted;
      if (!admitted) return policyFor(request.event);
      // Nothing of it reached the platform: its units were not spent.
      const error = request.error;
      const unreachable = error instanceof UpstreamUnreachableError && !error.maybeSent;
      if (!request.event.calls.sent || unreachable) await giveBack(admitted);
    },
  };

  async function admitOne(request: Kept, plans: Plans, input: RequestInput): Promise<void> {
    const state = request.event;
    const caller = state.caller!;
    const admitting = admit(gate, {
      callerId: caller.id,
      plans,
      units: spends(input),
      metrics: state.metrics,
      log: state.log,
    }).then((admitted) => {
      // Answered by the guard while the units were being taken, or later with no call gone
      // out: nothing of the request goes out, and nobody else is left to give them back.
      if (admitted.admitted) state.calls.whenAnsweredUnsent(() => void giveBack(admitted));
      return admitted;
    });
    // The admission itself is kept too: until it ends, the gate cannot know of that give-back.
    void gate.keep(admitting.then(noop, noop));
    const admitted = await admitting;
    if (!admitted.admitted) throw admitted.error;
    request.internal.admitted = admitted;
    state.carried.carry(admitted.headers);
  }

  /** After its answer: its units back if no call went out; a handed-off answer's cost. */
  async function settle(request: Kept, admitted: Admitted): Promise<void> {
    const state = request.event;
    if (!state.calls.sent) await giveBack(admitted);
    const stored = request.response ? handedOffBytes(request.response) : 0;
    if (stored > 0) state.carried.carry(await admitted.charge(Math.ceil(stored / MB)));
  }
}
