/**
 * What an execution runs: an action or a trigger of the secret (its target), the methods it
 * takes, and its execution URL with the platform's `blocking` and `result` parameters.
 */
import { MethodNotAllowedError, NotFoundError } from '../core/errors.ts';
import type { PlatformSecret } from '../secrets/schema.ts';

export type ExecutionKind = 'action' | 'trigger';

/** An action or trigger resolved from the secret: the target of an execution. */
export interface ExecutionTarget {
  readonly kind: ExecutionKind;
  readonly name: string;
  readonly url: string;
  /** Web actions accept the REST methods; ordinary actions and triggers only POST. */
  readonly web: boolean;
  readonly apiKey?: string | undefined;
  /** The action drops repeats itself (`x-delivery-id`): a queued run may be tried again. */
  readonly idempotent: boolean;
}

/**
 * The methods a web action is forwarded with (OpenWhisk web actions of the HTTP type), which
 * are also the methods of API Gateway's ANY route.
 */
export const WEB_ACTION_METHODS = [
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'HEAD',
] as const;
const POST_ONLY = ['POST'];

/** Looks the name up in the secret; an unknown name is a 404 and nothing is sent. */
export function resolveTarget(
  secret: PlatformSecret,
  kind: ExecutionKind,
  name: string,
): ExecutionTarget {
  const entries = kind === 'action' ? secret.actions : secret.triggers;
  const entry = entries && Object.hasOwn(entries, name) ? entries[name] : undefined;
  if (!entry) throw new NotFoundError(`No ${kind} named "${name}".`);
  const web = kind === 'action' && 'web' in entry && entry.web === true;
  const idempotent = kind === 'action' && 'idempotent' in entry && entry.idempotent === true;
  return { kind, name, url: entry.url, web, apiKey: entry.apiKey, idempotent };
}

/** The methods a target runs with. */
function allowedMethodsOf(target: ExecutionTarget): readonly string[] {
  return target.web ? WEB_ACTION_METHODS : POST_ONLY;
}

/** Refuses a method the target does not run with (405 with `Allow`); nothing is sent. */
export function checkMethod(target: ExecutionTarget, method: string): void {
  const allowed = allowedMethodsOf(target);
  if (!allowed.includes(method)) throw new MethodNotAllowedError(allowed);
}

/**
 * The execution URL with `blocking=true` and `result` added to whatever query it already has.
 * The existing query is kept as written (not re-encoded); a `blocking` or `result` it already
 * carries is replaced, so the platform never sees two values.
 */
export function executionUrl(base: string, result: boolean): URL {
  const url = new URL(base);
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !['blocking', 'result'].includes(queryKeyOf(pair)));
  url.search = [...kept, 'blocking=true', `result=${result}`].join('&');
  return url;
}

function queryKeyOf(pair: string): string {
  const raw = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}
