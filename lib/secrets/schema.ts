/**
 * The shape of the platform secret. Fields a function does not need may
 * be absent; each function checks for what it needs. Messages name the field, never its value.
 * The callers' part (callers, their tokens and plans) is callers-schema.ts's.
 */
import * as z from 'zod/mini';
import { nameSchema as name } from '../core/schemas.ts';
import type { SecretCapability } from '../core/secret-capabilities.ts';
import { callersSchema, callerToken, planSchema, tokenDigestOf } from './callers-schema.ts';

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
    callerTokens: z.optional(z.array(callerToken)),
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
