/**
 * The shape of the platform secret. Fields a function does not need may
 * be absent; each function checks for what it needs. Messages name the field, never its value.
 */
import * as z from 'zod/mini';
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

export const webhookSchema = z.object({
  secret: z.string().check(z.regex(/^whsec_[A-Za-z0-9+/=]+$/, 'expected a whsec_<base64> secret')),
  action: name,
  /** The webhook's deliveries run one after another, in the order received; else each alone. */
  ordered: z.optional(z.boolean()),
});

/**
 * A caller's bearer token: long enough that it cannot be guessed in any number of tries (a
 * one-character token could be). The message names the field, never the token.
 */
export const MIN_TOKEN_LENGTH = 32;
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

/** A named caller: who it is (in log lines and metrics), its token, what it may call, until when. */
export const callerSchema = z.object({
  id: z
    .string()
    .check(
      z.regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, 'expected an id of letters, digits, _ . @ -'),
    ),
  token,
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
  notAfter: z.optional(z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' })),
  /** The caller's share of the platform account (lib/usage/); none: only the account's plan. */
  plan: z.optional(planSchema),
});

/** Ids and tokens are each unique: an id names one caller, a token identifies one. */
const callersSchema = z.array(callerSchema).check(
  z.superRefine((callers, ctx) => {
    const ids = new Set<string>();
    const tokens = new Set<string>();
    callers.forEach((caller, index) => {
      if (ids.has(caller.id)) {
        ctx.addIssue({ code: 'custom', message: 'duplicate caller id', path: [index, 'id'] });
      }
      if (tokens.has(caller.token)) {
        ctx.addIssue({ code: 'custom', message: 'duplicate token', path: [index, 'token'] });
      }
      ids.add(caller.id);
      tokens.add(caller.token);
    });
  }),
);

export const platformSecretSchema = z.object({
  iam: z.optional(z.object({ accessKey: text, secretKey: text })),
  apiKey: z.optional(text),
  openapi: z.optional(z.object({ clientId: text, clientSecret: text })),
  actions: z.optional(z.record(name, actionSchema)),
  triggers: z.optional(z.record(name, triggerSchema)),
  webhooks: z.optional(z.record(name, webhookSchema)),
  callers: z.optional(callersSchema),
  /** The plan every caller is held to together (beside each caller's own). */
  accountPlan: z.optional(planSchema),
  /** Deprecated: each token is a caller with scope `*` (logged once per container). */
  callerTokens: z.optional(z.array(token)),
});

export type PlatformSecret = z.infer<typeof platformSecretSchema>;
export type WebhookEntry = z.infer<typeof webhookSchema>;
export type CallerEntry = z.infer<typeof callerSchema>;
export type PlanEntry = z.infer<typeof planSchema>;

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
