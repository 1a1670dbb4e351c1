/**
 * The execution client: runs an action or a trigger through its gateway execution URL from the
 * secret. Execution URLs need no signature by default (the platform's gateway authenticates
 * them with an optional API key), so calls go out unsigned, with the target's own API key when
 * it has one.
 *
 * What the action answers (any status, its Content-Type, its body) is the caller's answer;
 * only an error the gateway produced itself (authentication, quota, endpoint error, timeout)
 * becomes this service's envelope, and the gateway refusing the target's API key is the
 * operator's 500/`900` (lib/upstream/gateway/credential-refresh.ts), never the caller's 401.
 */

import type { CallContext } from '../core/call-context.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import type { SecretStore } from '../secrets/store.ts';
import { identifyAnswer } from '../upstream/answer-origin.ts';
import { type UpstreamAnswer, type UpstreamClient, upstreamClientOf } from '../upstream/client.ts';
import { decodeUpstreamError } from '../upstream/error-decoding.ts';
import { credentialsRefused, refusesCredentials } from '../upstream/gateway/credential-refresh.ts';
import { gatewayHeaderNames } from '../upstream/gateway/header-names.ts';
import {
  checkMethod,
  type ExecutionKind,
  type ExecutionTarget,
  executionUrl,
  resolveTarget,
} from './targets.ts';

/** One execution of a target. */
export interface Execution {
  /** The method it is sent with, upper case. */
  readonly method: string;
  /** `true` returns the action's result only; `false` its whole activation. */
  readonly result: boolean;
  /** The JSON body as sent (already checked to be JSON), or undefined. */
  readonly body?: string | undefined;
  /**
   * The queued delivery it runs, sent as `x-delivery-id` so that an action can drop repeats
   * of one delivery itself.
   */
  readonly deliveryId?: string;
  /** How long to wait for the answer, instead of UPSTREAM_TIMEOUT_MS (the queue consumer). */
  readonly timeoutMs?: number;
}

/** The header that names the delivery a queued run belongs to. */
const DELIVERY_ID_HEADER = 'x-delivery-id';

/**
 * Methods after which an execution may be repeated when the call failed. Running an action
 * runs code: a PUT or DELETE to a web action is not known to be idempotent, so only the
 * methods that never change anything by HTTP's definition are repeated.
 */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * True when the gateway answered instead of the action (lib/upstream/answer-origin.ts). An action that
 * answers with a body of its own, even an `{"error":...}` one, is passed through.
 */
export function isGatewayAnswer(answer: UpstreamAnswer, vendor: string): boolean {
  if (
    answer.status < 400 &&
    answer.headers[gatewayHeaderNames(vendor).responseOrigin] === undefined
  ) {
    return false;
  }
  const { origin } = identifyAnswer(answer.status, answer.headers, answer.body, vendor);
  return origin !== 'endpoint';
}

interface ExecutionClientOptions {
  /** The secret, where the targets are (actions, triggers, their URLs and API keys). */
  readonly secrets: SecretStore;
  readonly vendor: string;
  readonly http: UpstreamClient;
}

/** Runs actions and triggers for callers (HTTP routes) and for the invocation queue. */
export class ExecutionClient {
  private readonly options: ExecutionClientOptions;

  constructor(options: ExecutionClientOptions) {
    this.options = options;
  }

  /** The target of a request, checked: known name, allowed method. Nothing is sent. */
  async target(kind: ExecutionKind, name: string, method: string): Promise<ExecutionTarget> {
    const target = resolveTarget(await this.options.secrets.get(), kind, name);
    checkMethod(target, method);
    return target;
  }

  /**
   * Sends the execution and returns the action's own answer, whatever its status. A gateway
   * error is thrown as the decoded UpstreamError.
   */
  async execute(
    target: ExecutionTarget,
    execution: Execution,
    call: CallContext,
  ): Promise<UpstreamAnswer> {
    const headers: Record<string, string> = {};
    if (execution.body !== undefined) headers['content-type'] = 'application/json';
    if (target.apiKey) headers[gatewayHeaderNames(this.options.vendor).apiKey] = target.apiKey;
    if (execution.deliveryId) headers[DELIVERY_ID_HEADER] = execution.deliveryId;
    const answer = await this.options.http.send(
      {
        method: execution.method,
        url: executionUrl(target.url, execution.result),
        headers,
        body: execution.body,
        // Never repeated once it may have reached the action.
        idempotent: REPEATABLE_METHODS.has(execution.method),
        // The action's own error answers go back to the caller whole.
        passesErrors: true,
        service: `${target.kind}s`,
        timeoutMs: execution.timeoutMs,
      },
      call,
    );
    if (isGatewayAnswer(answer, this.options.vendor)) {
      // The gateway refusing the target's API key (missing, wrong, revoked) is the operator's;
      // the action's own 401 never comes here (it is the action's answer, passed through).
      if (refusesCredentials(answer, this.options.vendor)) {
        throw credentialsRefused(answer, `the ${target.kind} "${target.name}"'s apiKey`, call);
      }
      throw decodeUpstreamError(answer);
    }
    return answer;
  }
}

/** The container's execution client (execution URLs come from the secret). */
export const executionClientOf = perRuntime(
  (runtime: Runtime) =>
    new ExecutionClient({
      secrets: runtime.secretsFor('execution'),
      vendor: runtime.config.gatewayVendor,
      http: upstreamClientOf(runtime),
    }),
);
