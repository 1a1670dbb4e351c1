/**
 * An execution request: an execution as a caller asks for it over HTTP (the action and trigger
 * routes). The name, method and body are checked against the target before anything is taken
 * of the caller's plans or sent (the stack's execution-target step); then the action's answer
 * comes back whole.
 */

import { InputError } from '../core/errors.ts';
import { mediaType } from '../core/headers.ts';
import { callerJson, callerJsonObject } from '../core/json.ts';
import type { ExecutionClient } from './client.ts';
import type { ExecutionKind, ExecutionTarget } from './targets.ts';

/** OpenWhisk names the activation of an answer in this header; callers need it for support. */
export const ACTIVATION_ID_HEADER = 'x-openwhisk-activation-id';

/** What the caller asked to run. */
export interface ExecutionRequest {
  readonly kind: ExecutionKind;
  readonly name: string;
  /** The caller's method, upper case. */
  readonly method: string;
  /** The body's bytes (empty when there is none). */
  readonly body: Buffer;
  readonly contentType: string | undefined;
}

/**
 * The caller's body as JSON text, or undefined when there is none. A body must be JSON with
 * `Content-Type: application/json`; ordinary actions and triggers need one, a JSON object
 * (their parameters); a web action's is optional, and GET and HEAD carry none.
 */
export function executionBody(
  target: ExecutionTarget,
  method: string,
  raw: Buffer,
  contentType: string | undefined,
): string | undefined {
  if (raw.length === 0) {
    if (target.web) return undefined;
    throw new InputError([{ path: 'body', issue: 'a JSON object of parameters is required' }]);
  }
  if (method === 'GET' || method === 'HEAD') {
    throw new InputError([{ path: 'body', issue: `a ${method} request carries no body` }]);
  }
  if (mediaType(contentType ?? '') !== 'application/json') {
    throw new InputError([{ path: 'headers.content-type', issue: 'expected application/json' }]);
  }
  // A web action takes any JSON; an ordinary action a JSON object of parameters.
  if (target.web) callerJson(raw);
  else callerJsonObject(raw, 'expected a JSON object of parameters');
  return raw.toString('utf8');
}

/** An execution request checked against its target: what the handler runs. */
export interface CheckedExecution {
  readonly target: ExecutionTarget;
  /** The body as JSON text, or undefined when there is none. */
  readonly body: string | undefined;
}

/** Checks name, method and body (404, 405, 400); nothing is sent. */
export async function checkExecution(
  client: ExecutionClient,
  request: ExecutionRequest,
): Promise<CheckedExecution> {
  const target = await client.target(request.kind, request.name, request.method);
  return {
    target,
    body: executionBody(target, request.method, request.body, request.contentType),
  };
}
