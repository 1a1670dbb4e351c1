/**
 * The shape of the platform secret. Fields a function does not need may
 * be absent; each function checks for what it needs. Messages name the field, never its value.
 */
import { hash } from 'node:crypto';
import * as z from 'zod/mini';
import { _isoDateTime } from 'zod/v4/core';
import { nameSchema as name } from '../core/schemas.js';
import { isScope } from '../core/scopes.js';
import type { SecretCapability } from '../core/secret-capabilities.js';

const text = z.string().check(z.minLength(1, 'expected a non-empty string'));
const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL' });

const actionSchema = z.object({
  url: httpUrl,
  web: z.optional(z.boolean()),
  apiKey: z.optional(text),
  /**
   * The action drops repeats itself (by the `x-delivery-id` header of a queued run): the
   * consumer may run it again when an earlier run's outcome is unknown.
   */
  idempotent: z.optional(z.boolean()),
});

const triggerSchema = z.object({
  url: httpUrl,
  apiKey: z.optional(text),
});

/**
 * The shortest webhook secret, in bytes once decoded: Standard Webhooks secrets are 24 to 64
 * bytes. A shorter key (`whsec_AA==` is one byte) could be found by trying.
 */
const MIN_WEBHOOK_SECRET_BYTES = 24;
/** Secrets a webhook may hold at once: the old and the new one during a rotation, and a spare. */
export const MAX_WEBHOOK_SECRETS = 3;

const WHSEC = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** The key of a `whsec_<base64>` secret, decoded. */
export function webhookKeyOf(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

const webhookSecret = z.string().check(
  z.regex(WHSEC, 'expected a whsec_<base64> secret'),
  z.refine(
    (secret) => !WHSEC.test(secret) || webhookKeyOf(secret).length >= MIN_WEBHOOK_SECRET_BYTES,
    `expected a secret of at least ${MIN_WEBHOOK_SECRET_BYTES} bytes (decoded)`,
  ),
);

/**
 * A webhook: its secret, or its secrets during a rotation (a delivery signed with any of them is
 * accepted, so that the sender may switch at any moment), and the action its deliveries run.
 */
const webhookSchema = z
  .object({
    secret: z.optional(webhookSecret),
    secrets: z.optional(
      z
        .array(webhookSecret)
        .check(
          z.minLength(1, 'expected at least one secret'),
          z.maxLength(MAX_WEBHOOK_SECRETS, `expected at most ${MAX_WEBHOOK_SECRETS} secrets`),
        ),
    ),
    action: name,
    /** The webhook's deliveries run one after another, in the order received; else each alone. */
    ordered: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((webhook, ctx) => {
      if ((webhook.secret === undefined) === (webhook.secrets === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'expected either secret or secrets, not both and not neither',
          path: ['secret'],
        });
      }
    }),
  );

/** A webhook's secrets: its `secrets`, or its one `secret`. */
export function webhookSecretsOf(entry: WebhookEntry): readonly string[] {
  return entry.secrets ?? (entry.secret === undefined ? [] : [entry.secret]);
}

/**
 * Each webhook's secrets are its own: a delivery signed for one webhook must not verify as a
 * delivery to another (it would run the other's action). Compared as decoded keys.
 */
const webhooksSchema = z.record(name, webhookSchema).check(
  z.superRefine((webhooks, ctx) => {
    const owners = new Map<string, string>();
    for (const [webhook, entry] of Object.entries(webhooks)) {
      const field = entry.secrets ? 'secrets' : 'secret';
      webhookSecretsOf(entry).forEach((secret, index) => {
        const key = webhookKeyOf(secret).toString('base64');
        const owner = owners.get(key);
        if (owner !== undefined && owner !== webhook) {
          ctx.addIssue({
            code: 'custom',
            message: `the same secret as the webhook "${owner}": each webhook needs its own`,
            path: field === 'secrets' ? [webhook, field, index] : [webhook, field],
          });
        }
        if (owner === undefined) owners.set(key, webhook);
      });
    }
  }),
);

/**
 * A caller's bearer token: long enough that it cannot be guessed in any number of tries (a
 * one-character token could be). The message names the field, never the token.
 */
const MIN_TOKEN_LENGTH = 32;
const token = z
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
    token: z.optional(token),
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
const callersSchema = z.array(callerSchema).check(
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

export const platformSecretSchema = z
  .object({
    iam: z.optional(z.object({ accessKey: text, secretKey: text })),
    apiKey: z.optional(text),
    openapi: z.optional(z.object({ clientId: text, clientSecret: text })),
    actions: z.optional(z.record(name, actionSchema)),
    triggers: z.optional(z.record(name, triggerSchema)),
    webhooks: z.optional(webhooksSchema),
    callers: z.optional(callersSchema),
    /** The plan every caller is held to together (beside each caller's own). */
    accountPlan: z.optional(planSchema),
    /** Deprecated: each token is a caller with scope `*` (logged once per container). */
    callerTokens: z.optional(z.array(token)),
  })
  .check(
    z.superRefine(({ callers, callerTokens }, ctx) => {
      // A token identifies one caller, whichever list holds it (a token and the digest of the
      // same token count as one): which entry a match would find is not for the order of the
      // secret to decide (a half-done move from callerTokens would give a named caller `*`).
      const holders = new Map<string, string>();
      const hold = (digest: string, field: string, path: (string | number)[]) => {
        const holder = holders.get(digest);
        if (holder) ctx.addIssue({ code: 'custom', message: `duplicate token (${holder})`, path });
        else holders.set(digest, field);
      };
      callers?.forEach((caller, index) => {
        const field = caller.token === undefined ? 'tokenSha256' : 'token';
        hold(tokenDigestOf(caller), `callers.${index}`, ['callers', index, field]);
      });
      callerTokens?.forEach((token, index) => {
        hold(tokenDigestOf({ token }), `callerTokens.${index}`, ['callerTokens', index]);
      });
    }),
  );

export type PlatformSecret = z.infer<typeof platformSecretSchema>;
export type WebhookEntry = z.infer<typeof webhookSchema>;
export type CallerEntry = z.infer<typeof callerSchema>;
export type PlanEntry = z.infer<typeof planSchema>;

/**
 * The document cut by capability, as a stage that splits its secret keeps it: for each
 * capability that holds any field of it, a document of that capability's fields only.
 */
export function splitByCapability(
  secret: Readonly<Record<string, unknown>>,
): Partial<Record<SecretCapability, Record<string, unknown>>> {
  const parts: Partial<Record<SecretCapability, Record<string, unknown>>> = {};
  for (const [capability, fields] of Object.entries(CAPABILITY_FIELDS) as [
    SecretCapability,
    readonly string[],
  ][]) {
    const held = fields.filter((field) => Object.hasOwn(secret, field));
    if (held.length > 0) {
      parts[capability] = Object.fromEntries(held.map((field) => [field, secret[field]]));
    }
  }
  return parts;
}

/** The document's fields each capability holds (a capability's own secret holds only these). */
export const CAPABILITY_FIELDS: Readonly<
  Record<SecretCapability, readonly (keyof PlatformSecret)[]>
> = {
  signing: ['iam', 'apiKey'],
  catalogue: ['openapi'],
  execution: ['actions', 'triggers'],
  webhooks: ['webhooks'],
  callers: ['callers', 'callerTokens', 'accountPlan'],
};
