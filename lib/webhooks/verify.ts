/**
 * The webhook receiver's rules: Standard Webhooks signatures
 * (`webhook-id`, `webhook-timestamp` in seconds, `webhook-signature` `v1,<base64>`), verified
 * with the standardwebhooks library on the raw body before anything parses it. A missing, bad
 * or stale signature (the library's tolerance: 5 minutes either way) is a 401 with `200`.
 */
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { InputError, NotFoundError, WebhookSignatureError } from '../core/errors.js';
import type { HeaderMap } from '../core/headers.js';
import { callerJsonObject } from '../core/json.js';
import type { PlatformSecret, WebhookEntry } from '../secrets/schema.js';
import { depthOf, MAX_PAYLOAD_DEPTH } from './invocation.js';

interface VerifiedDelivery {
  readonly id: string;
  /** webhook-timestamp, in epoch seconds (already checked to be within the tolerance). */
  readonly timestamp: number;
  /** The body, a JSON object: the action's parameters. */
  readonly payload: Record<string, unknown>;
}

export function webhookEntry(secret: PlatformSecret, name: string): WebhookEntry {
  const webhooks = secret.webhooks;
  const entry = webhooks && Object.hasOwn(webhooks, name) ? webhooks[name] : undefined;
  if (!entry) throw new NotFoundError(`No webhook named "${name}".`);
  return entry;
}

/** One verifier per secret: the key is decoded once, and again only after a rotation. */
const verifiers = new Map<string, Webhook>();

function verifierFor(secret: string): Webhook {
  let verifier = verifiers.get(secret);
  if (!verifier) {
    verifiers.clear();
    verifier = new Webhook(secret);
    verifiers.set(secret, verifier);
  }
  return verifier;
}

/**
 * Verifies the signature over the raw bytes, then reads the body. The library parses the
 * timestamp leniently (`parseInt`), so it is checked to be whole seconds first.
 */
export function verifyDelivery(
  entry: WebhookEntry,
  rawBody: Buffer,
  headers: HeaderMap,
): VerifiedDelivery {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (!id || !timestamp || !signature) {
    throw new WebhookSignatureError('The webhook signature headers are missing.');
  }
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    throw new WebhookSignatureError('webhook-timestamp is not a number of seconds.');
  }
  try {
    verifierFor(entry.secret).verify(
      rawBody,
      { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature },
      { jsonParse: false },
    );
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new WebhookSignatureError(error.message);
    throw error;
  }
  return { id, timestamp: Number(timestamp), payload: parsePayload(rawBody) };
}

function parsePayload(rawBody: Buffer): Record<string, unknown> {
  if (rawBody.length === 0) {
    throw new InputError([{ path: 'body', issue: 'a JSON object is required' }]);
  }
  const payload = callerJsonObject(rawBody);
  // Refused before the 202: the consumer could not serialize it again to run the action.
  if (depthOf(payload) > MAX_PAYLOAD_DEPTH) {
    throw new InputError([
      { path: 'body', issue: `nested more than ${MAX_PAYLOAD_DEPTH} levels deep` },
    ]);
  }
  return payload;
}

/** Characters SQS accepts in a MessageDeduplicationId (at most 128 of them). */
const SQS_DEDUP_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The once-only key of a delivery: webhook-ids are unique per sender, and each webhook has
 * its own sender, so the key is the webhook's name with the id. Keys SQS would not take (too
 * long, other characters) are replaced by their SHA-256.
 */
export function deliveryKey(webhook: string, id: string): string {
  const key = `${webhook}:${id}`;
  return SQS_DEDUP_ID.test(key) ? key : createHash('sha256').update(key, 'utf8').digest('hex');
}
