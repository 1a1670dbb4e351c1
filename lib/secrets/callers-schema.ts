/**
 * The callers' part of the platform secret (the `callers` capability, schema.ts): each caller's
 * id, its token or only the token's SHA-256, its scopes, until when its token holds, and its
 * usage plan; the deprecated `callerTokens`; and the plans, the account's as well. Messages name
 * the field, never its value.
 */
import { hash } from 'node:crypto';
import * as z from 'zod/mini';
import { _isoDateTime } from 'zod/v4/core';
import { isScope } from '../core/scopes.ts';

/**
 * A caller's bearer token: long enough that it cannot be guessed in any number of tries (a
 * one-character token could be). The message names the field, never the token.
 */
const MIN_TOKEN_LENGTH = 32;
export const callerToken = z
  .string()
  .check(
    z.minLength(MIN_TOKEN_LENGTH, `expected a token of at least ${MIN_TOKEN_LENGTH} characters`),
  );

/** A count of a plan: a whole number above 0 (the message names the field, never the value). */
const planCount = z
  .int('expected a whole number')
  .check(z.gte(1, 'expected a whole number of at least 1'));

/** An object of a plan that refuses unknown members: a misspelt limit is an error, not no limit. */
function planObject<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown member(s): ${issue.keys.join(', ')}`
        : 'expected an object',
  });
}

/** Characters of `text` a window may carry, per API (translate: both engines). */
const characterQuotaSchema = planObject({
  translate: z.optional(planCount),
  tts: z.optional(planCount),
});

/**
 * A usage plan, in the platform's own vocabulary (lib/usage/, docs/callers.md): a token bucket
 * (`rateRps` requests a second, `burst` at once; whole numbers, as the platform's usage plans
 * take them), requests per UTC day and month, and characters of text per UTC day and month.
 * Every field is optional; `burst` needs `rateRps`.
 */
export const planSchema = planObject({
  rateRps: z.optional(planCount),
  burst: z.optional(planCount),
  dayQuotaRequest: z.optional(planCount),
  monthQuotaRequest: z.optional(planCount),
  dayQuotaCharacters: z.optional(characterQuotaSchema),
  monthQuotaCharacters: z.optional(characterQuotaSchema),
}).check(
  z.refine((plan) => plan.burst === undefined || plan.rateRps !== undefined, {
    message: 'burst needs rateRps',
    path: ['burst'],
  }),
);

/** The hex SHA-256 of a token, as `tokenSha256` holds it (64 hex digits, either case). */
const tokenSha256 = z
  .string()
  .check(z.regex(/^[0-9A-Fa-f]{64}$/, 'expected the hex SHA-256 of a token (64 hex digits)'));

/**
 * A named caller: who it is (in log lines and metrics), its token or only the token's SHA-256
 * (`tokenSha256`: whoever reads the secret then cannot call as it), what it may call, until when.
 */
export const callerSchema = z
  .object({
    id: z.string().check(
      z.regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, 'expected an id of letters, digits, _ . @ -'),
      // The deprecated callerTokens' own names: a caller under one would be taken for them.
      z.refine((id) => !/^callerTokens\.\d+$/.test(id), 'callerTokens.<n> is reserved'),
    ),
    token: z.optional(callerToken),
    tokenSha256: z.optional(tokenSha256),
    scopes: z
      .array(
        z
          .string()
          .check(
            z.refine(
              isScope,
              'expected a scope such as jobs:read, actions:<name>, catalogue:maps or *',
            ),
          ),
      )
      .check(z.minLength(1, 'expected at least one scope')),
    /** The token is refused from this instant on (ISO 8601 with an offset, such as ...Z). */
    notAfter: z.optional(
      // z.iso.datetime, built from its parts: `z.iso` brings every ISO format into each bundle.
      _isoDateTime(z.ZodMiniISODateTime, {
        offset: true,
        error: 'expected an ISO 8601 date-time',
      }),
    ),
    /** The caller's share of the platform account (lib/usage/); none: only the account's plan. */
    plan: z.optional(planSchema),
  })
  .check(
    z.superRefine((caller, ctx) => {
      if ((caller.token === undefined) === (caller.tokenSha256 === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'expected either token or tokenSha256, not both and not neither',
          path: ['token'],
        });
      }
    }),
  );

/** The hex SHA-256 of a caller's token (lower case): its `tokenSha256`, or its token's. */
export function tokenDigestOf(caller: Pick<CallerEntry, 'token' | 'tokenSha256'>): string {
  return caller.tokenSha256 !== undefined
    ? caller.tokenSha256.toLowerCase()
    : hash('sha256', caller.token ?? '', 'hex');
}

/** A caller's entry without what only one of its tokens has: what all entries of an id share. */
function sharedPartOf(caller: CallerEntry): string {
  const { token: _token, tokenSha256: _digest, notAfter: _notAfter, ...rest } = caller;
  return JSON.stringify({ ...rest, scopes: [...rest.scopes].sort() });
}

/**
 * Each caller holds a token or its digest, one of them; a token identifies one entry, of either
 * list (platformSecretSchema). An id may have two entries or more, one per token, to rotate with
 * no gap and no new name in the logs and metrics; they must then agree on everything but the
 * token and `notAfter`, so that which token is presented never changes what the caller may do.
 */
export const callersSchema = z.array(callerSchema).check(
  z.superRefine((callers, ctx) => {
    const shared = new Map<string, string>();
    callers.forEach((caller, index) => {
      const part = sharedPartOf(caller);
      const first = shared.get(caller.id);
      if (first !== undefined && first !== part) {
        ctx.addIssue({
          code: 'custom',
          message:
            'duplicate caller id with other scopes: the entries of one id (one per token, while it rotates) must hold the same scopes',
          path: [index, 'id'],
        });
      }
      shared.set(caller.id, first ?? part);
    });
  }),
);

export type CallerEntry = z.infer<typeof callerSchema>;
export type PlanEntry = z.infer<typeof planSchema>;
