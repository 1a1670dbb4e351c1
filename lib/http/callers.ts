/**
 * Who a request comes from. With bearer tokens, the secret's callers: named, scoped, maybe with
 * an end (`notAfter`), and the deprecated `callerTokens` as callers with scope `*`; tokens are
 * compared as SHA-256 digests in constant time, and never logged. A caller may be given as its
 * token's digest only (`tokenSha256`), so that whoever reads the secret cannot call as it. Deployed with a JWT issuer,
 * API Gateway's JWT authorizer has checked the token, and the caller is read from its claims.
 *
 * A wrong token never triggers a fetch of the secret (callers cannot drive Secrets Manager
 * traffic); the secret is refreshed on its own TTL. While it cannot be refreshed, the last good
 * copy keeps serving, but only for so long (CALLERS_MAX_STALE_SECONDS past its TTL) as the list
 * of callers: past that, callers are refused with 503, so that a revoked token cannot live on
 * through a Secrets Manager outage. The platform credentials are not bounded that way.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { CallerAuthError, CallersUnavailableError } from '../core/errors.ts';
import type { HeaderMap } from '../core/headers.ts';
import { perRuntime } from '../core/per-runtime.ts';
import { ALL_SCOPES } from '../core/scopes.ts';
import type { Runtime } from '../runtime.ts';
import { tokenDigestOf } from '../secrets/callers-schema.ts';
import type { PlatformSecret } from '../secrets/schema.ts';
import type { FetchedSecret } from '../secrets/store.ts';
import { type Plans, plansOf } from '../usage/plan.ts';

/**
 * A known caller: its id (on log lines and metrics), the scopes it holds, and the usage plans
 * its requests are held to (its own and the account's, from the secret that lists it; none for
 * a JWT caller).
 */
export interface Caller {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly plans?: Plans;
}

/** Finds the caller of a request, or throws: 401/`200` unknown, 503/`500` no list to check. */
export type IdentifyCaller = (event: APIGatewayProxyEventV2, headers: HeaderMap) => Promise<Caller>;

/** The token of `Authorization: Bearer <token>`, or undefined. */
function bearerTokenOf(headers: HeaderMap): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/**
 * The token of `Authorization: Bearer <token>`, or the 401 that says what was wrong with the
 * header: none, or not a bearer token (Basic, a bare token, `Bearer` with nothing after it).
 */
function requireBearerToken(headers: HeaderMap): string {
  const token = bearerTokenOf(headers);
  if (token) return token;
  throw new CallerAuthError(
    (headers.authorization ?? '').trim() === '' ? 'missing-token' : 'not-bearer',
  );
}

interface KnownCaller extends Caller {
  /** ms since the epoch from which the token is refused; undefined: no end. */
  readonly notAfter: number | undefined;
}

/** The callers of one fetched secret, with their tokens' digests (never the tokens). */
interface CallerTable {
  readonly callers: readonly KnownCaller[];
  readonly digests: readonly Buffer[];
}

/** One-shot hash: cheaper than createHash (1.1 against 1.9 µs here), paid on every request. */
function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

const tables = new WeakMap<PlatformSecret, CallerTable>();

/** The secret's callers, computed once per fetched secret. */
function tableOf(secret: PlatformSecret): CallerTable {
  let table = tables.get(secret);
  if (!table) {
    // A caller holds its token, or only the token's SHA-256 (tokenSha256): the same digest.
    const named = (secret.callers ?? []).map((caller) => ({
      caller: {
        id: caller.id,
        scopes: caller.scopes,
        notAfter: caller.notAfter === undefined ? undefined : Date.parse(caller.notAfter),
      },
      digest: Buffer.from(tokenDigestOf(caller), 'hex'),
    }));
    const legacy = (secret.callerTokens ?? []).map((token, index) => ({
      caller: { id: `callerTokens.${index}`, scopes: [ALL_SCOPES], notAfter: undefined },
      digest: sha256(token),
    }));
    const all = [...named, ...legacy];
    table = {
      callers: all.map(({ caller }) => caller),
      digests: all.map(({ digest }) => digest),
    };
    tables.set(secret, table);
  }
  return table;
}

/**
 * The index of the digest the token matches, or -1. Every digest is compared, with no early exit
 * and equal lengths, so the time taken does not tell how close a guess came or which matched.
 */
export function tokenIndex(presented: string, digests: readonly Buffer[]): number {
  const presentedDigest = sha256(presented);
  let found = -1;
  for (let index = 0; index < digests.length; index++) {
    const equal = timingSafeEqual(presentedDigest, digests[index]!);
    found = equal ? index : found;
  }
  return found;
}

interface SecretCallersOptions {
  /** The secret that lists the callers, with the time it was fetched. */
  readonly load: () => Promise<FetchedSecret>;
  /** Older than this, the fetched secret no longer says who the callers are. */
  readonly maxAgeMs: number;
  /** When the store may fetch again, in ms from now (the answer's Retry-After). */
  readonly retryInMs: () => number;
  readonly now: () => number;
}

/** Callers by bearer token, from the secret. */
export function secretCallers(options: SecretCallersOptions): IdentifyCaller {
  return async (_event, headers) => {
    const token = requireBearerToken(headers);
    const { value, fetchedAt } = await options.load();
    const now = options.now();
    if (now - fetchedAt > options.maxAgeMs) {
      throw new CallersUnavailableError(options.retryInMs() / 1000);
    }
    const table = tableOf(value);
    const caller = table.callers[tokenIndex(token, table.digests)];
    if (!caller || (caller.notAfter !== undefined && now >= caller.notAfter)) {
      // One reason for both: the answer never tells which tokens exist.
      throw new CallerAuthError('unknown-or-expired-token');
    }
    return { id: caller.id, scopes: caller.scopes, plans: plansOf(value, caller.id) };
  };
}

/** An id from a JWT claim: printable, no spaces, short enough for a metric dimension. */
const CLAIM_ID = /^[\x21-\x7e]{1,128}$/;

/** The scopes of a token as API Gateway passes its claims: `scope` "a b", or `scp`. */
function scopesOfClaims(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  const text = Array.isArray(raw) ? raw.join(' ') : typeof raw === 'string' ? raw : '';
  // API Gateway hands a list claim over as text, "[a b]".
  return text
    .replace(/^\[|\]$/g, '')
    .split(/\s+/)
    .filter((scope) => scope !== '');
}

type JwtContext = { authorizer?: { jwt?: { claims?: Record<string, unknown> } } };

/**
 * Callers by JWT, deployed behind API Gateway's JWT authorizer: it has checked the signature,
 * the expiry, the audience and (where the route names them) the scopes; the function takes the
 * caller's id from `sub`, else `client_id`. Claims from another issuer, or none, are refused:
 * a route that somehow lost its authorizer does not let anyone in.
 *
 * A `*` in the claims is dropped unless the stage allows it (JWT_ALLOW_STAR_SCOPE=true): the
 * token keeps its other scopes, and a token with `*` only is a caller with no scope (403 on
 * every route). Dropped rather than refused: the token is genuine, and what it may do is
 * exactly what its narrower scopes say.
 */
export function jwtCallers(
  issuer: string,
  options: { readonly allowStarScope?: boolean } = {},
): IdentifyCaller {
  return async (event) => {
    const claims = (event.requestContext as JwtContext).authorizer?.jwt?.claims;
    if (!claims || claims.iss !== issuer) throw new CallerAuthError();
    const id = [claims.sub, claims.client_id].find(
      (claim): claim is string => typeof claim === 'string' && CLAIM_ID.test(claim),
    );
    if (!id) throw new CallerAuthError();
    const scopes = scopesOfClaims(claims);
    return {
      id,
      scopes: options.allowStarScope ? scopes : scopes.filter((scope) => scope !== ALL_SCOPES),
    };
  };
}

/**
 * The container's callers: from JWT claims when deployed with an issuer (no callers' secret is
 * read then), else the secret's, checked against its bound on staleness.
 */
export const callersOf = perRuntime((runtime: Runtime): IdentifyCaller => {
  if (runtime.config.jwtIssuer) {
    return jwtCallers(runtime.config.jwtIssuer, {
      allowStarScope: runtime.config.jwtAllowStarScope,
    });
  }
  const store = runtime.secretsFor('callers');
  return secretCallers({
    load: () => store.getFetched(),
    maxAgeMs: runtime.config.secretsTtlMs + runtime.config.callersMaxStaleMs,
    retryInMs: () => store.retryInMs(),
    now: runtime.now,
  });
});
