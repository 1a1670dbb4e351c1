/**
 * The consumer's run step, where a queued invocation meets its action. It finds the action in the
 * secret, or says why it can never run. Then it makes one blocking call to it, whose response or
 * error becomes the run's outcome (outcome.ts).
 */
import type { CallContext } from '../core/call-context.ts';
import { NotFoundError, UpstreamError } from '../core/errors.ts';
import type { ExecutionClient } from '../execution/client.ts';
import type { SecretStore } from '../secrets/store.ts';
import type { AccountRecorder } from '../usage/record.ts';
import { ONE_REQUEST } from '../usage/units.ts';
import { type BodyStore, bodyDigestOf } from './body-store.ts';
import type { ParsedInvocation } from './invocation.ts';
import { outcomeOfAnswer, outcomeOfError, type RunOutcome } from './outcome.ts';

/** What running an action takes. */
export interface ActionDeps {
  readonly execution: ExecutionClient;
  /**
   * The webhooks' secret, where the consumer may read it, to find a delivery's webhook. A delivery
   * of a removed webhook moves to the dead-letter queue. When the webhooks have a secret of their
   * own, only the receiver reads it. A webhook is then stopped at the receiver, and its queued
   * deliveries still run.
   */
  readonly webhooks: SecretStore | undefined;
  /** Where params too large for a message were put; absent locally. */
  readonly bodies?: BodyStore;
  /**
   * Where a delivery that reached its action is counted in the account's usage (never held by
   * a plan: its sender is not a caller); absent, it is not counted.
   */
  readonly usage?: AccountRecorder;
}

/**
 * The longest the consumer waits for an action. The platform responds to a blocking call within 60
 * s, plus the gateway's own time. A longer run gets 202 with its activation id, and goes on. A call
 * starts only when this much of the function's time is left. The first call of each group is the
 * exception: it has the whole invocation.
 */
export const ACTION_WAIT_MS = 65_000;

type Target = Awaited<ReturnType<ExecutionClient['target']>>;

/** The action of an invocation, or why it can never run. */
export async function resolveAction(
  invocation: ParsedInvocation,
  deps: ActionDeps,
): Promise<Target | string> {
  const source = invocation.source;
  if (source && deps.webhooks) {
    const webhooks = (await deps.webhooks.get()).webhooks;
    if (!webhooks || !Object.hasOwn(webhooks, source.webhook)) {
      return `the webhook "${source.webhook}" is not in the secret`;
    }
  }
  try {
    return await deps.execution.target('action', invocation.action, 'POST');
  } catch (error) {
    if (error instanceof NotFoundError) return `no action named "${invocation.action}"`;
    throw error;
  }
}

/**
 * The params to send: the message's own, or the body store's, which must match the SHA-256 the
 * message carries. Otherwise anyone who could put an object in the bucket could swap what a queued
 * delivery runs. A body that does not match is refused: it moves to the dead-letter queue, never
 * run.
 */
async function paramsOf(
  invocation: ParsedInvocation,
  deps: ActionDeps,
): Promise<string | RunOutcome> {
  const ref = invocation.paramsRef;
  if (!ref) return JSON.stringify(invocation.params);
  if (!deps.bodies) return { kind: 'refused', reason: 'no body store for its params' };
  const text = await deps.bodies.get(ref);
  if (bodyDigestOf(text) !== ref.sha256) {
    return {
      kind: 'refused',
      reason: `its params in the body store (${ref.key}) do not match the SHA-256 its message carries`,
    };
  }
  return text;
}

/**
 * One blocking POST of the params to the action, result only, waiting as long as allowed, with
 * the delivery's key as its id (`x-delivery-id`).
 */
export async function callAction(
  invocation: ParsedInvocation,
  target: Target,
  deliveryKey: string,
  deps: ActionDeps,
  call: CallContext,
): Promise<RunOutcome> {
  try {
    const params = await paramsOf(invocation, deps);
    if (typeof params !== 'string') return params;
    const answer = await deps.execution.execute(
      target,
      {
        method: 'POST',
        result: true,
        body: params,
        deliveryId: deliveryKey,
        timeoutMs: ACTION_WAIT_MS,
      },
      call,
    );
    await deps.usage?.record(ONE_REQUEST, call.log);
    return outcomeOfAnswer(answer);
  } catch (error) {
    // The platform answered (an error of its gateway): the delivery counts in its usage.
    if (error instanceof UpstreamError) await deps.usage?.record(ONE_REQUEST, call.log);
    return outcomeOfError(error);
  }
}
