/**
 * A request's calls to the platform, as its call context tells of them: whether one was
 * written on its connection (from then on it may reach the platform, and the request counts
 * in its caller's plans), and whether the request was answered before its work ended (the
 * guard's 504, answer-in-time.ts), after which none may start or be written.
 */
import { UpstreamTimeoutError } from '../core/errors.ts';

export class RequestCalls {
  /** Whether a call of the request was written on its connection (only `onSend` sets it). */
  sent = false;
  #answered = false;
  #whenAnsweredUnsent: (() => void) | undefined;

  /** A call is about to start (the call context's `beforeSend`): refused once answered. */
  readonly beforeSend = (): void => {
    if (this.#answered) throw new UpstreamTimeoutError();
  };

  /** A call's request is being written (the call context's `onSend`): refused once answered. */
  readonly onSend = (): void => {
    this.beforeSend();
    this.sent = true;
  };

  /** The request was answered before its work ended: no call of it goes out any more. */
  answered(): void {
    this.#answered = true;
    if (!this.sent) this.#whenAnsweredUnsent?.();
  }

  /**
   * `then` runs if the request is answered before any call of it went out: at once when it
   * was already (the units its admission took go back: middleware/admission.ts).
   */
  whenAnsweredUnsent(then: () => void): void {
    if (this.#answered && !this.sent) then();
    else this.#whenAnsweredUnsent = then;
  }
}
