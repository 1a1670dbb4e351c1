/**
 * The shape of the platform secret. Fields a function does not need may
 * be absent; each function checks for what it needs. Messages name the field, never its value.
 */
import * as z from 'zod/mini';
import { nameSchema as name } from '../core/schemas.js';

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

export const platformSecretSchema = z.object({
  iam: z.optional(z.object({ accessKey: text, secretKey: text })),
  apiKey: z.optional(text),
  openapi: z.optional(z.object({ clientId: text, clientSecret: text })),
  actions: z.optional(z.record(name, actionSchema)),
  triggers: z.optional(z.record(name, triggerSchema)),
  webhooks: z.optional(z.record(name, webhookSchema)),
  callerTokens: z.optional(z.array(text)),
});

export type PlatformSecret = z.infer<typeof platformSecretSchema>;
export type WebhookEntry = z.infer<typeof webhookSchema>;
