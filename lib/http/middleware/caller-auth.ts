/**
 * Caller authentication: `Authorization: Bearer <token>` with a token the secret accepts, or
 * 401/`200` before anything is parsed or sent. Tokens are compared in constant time.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { CallerAuthError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { type HttpMiddleware, stateOf } from './request-state.js';

/** The accepted tokens (from the secret, which may have been rotated since the last request). */
export type CallerTokens = () => Promise<readonly string[]>;

export function callerAuth(callerTokens: CallerTokens, baseLog: Logger): HttpMiddleware {
  return {
    before: async (request) => {
      const header = stateOf(request, baseLog).headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1] || !tokenMatches(match[1], await callerTokens())) throw new CallerAuthError();
    },
  };
}

/** Digests of the accepted tokens, computed once per token list (once per fetched secret). */
const acceptedDigests = new WeakMap<readonly string[], Buffer[]>();

/** One-shot hash: cheaper than createHash (1.1 against 1.9 µs here), paid on every request. */
function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Compares against every token in constant time: no early exit, equal-length digests. */
export function tokenMatches(presented: string, accepted: readonly string[]): boolean {
  let digests = acceptedDigests.get(accepted);
  if (!digests) {
    digests = accepted.map(sha256);
    acceptedDigests.set(accepted, digests);
  }
  const presentedDigest = sha256(presented);
  let matched = false;
  for (const digest of digests) matched = timingSafeEqual(presentedDigest, digest) || matched;
  return matched;
}
