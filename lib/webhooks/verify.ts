/**
 * The webhook receiver's rules, from Standard Webhooks. A delivery carries `webhook-id`,
 * `webhook-timestamp` (in seconds) and `webhook-signature`: one or more `v1,<base64>`, separated
 * by spaces. A signature is an HMAC-SHA256 of `<id>.<timestamp>.<raw body>` with the webhook's
 * key, checked before anything parses the body. A signature that is missing, bad, or over 5
 * minutes off either way gets 401/`200`.
 *
 * An anonymous sender can cost only so much, and learns nothing of the names. The cheap checks
 * come first: the headers, the timestamp's window, the body's size. An unknown name gets the same
 * response as a bad signature, after the same work (an HMAC with a key of no webhook).
 * node:crypto's HMAC is about 20 times faster on a large body than the standardwebhooks library's
 * SHA-256 in JavaScript. The tests sign with that library, an independent check of this one.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  InputError,
  PayloadTooLargeError,
  WebhookSignatureError,
  WebhooksUnavailableError,
} from '../core/errors.ts';
import type { HeaderMap } from '../core/headers.ts';
import { callerJsonObject } from '../core/json.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import {
  MAX_WEBHOOK_SECRETS,
  type WebhookEntry,
  webhookKeyOf,
  webhookSecretsOf,
} from '../secrets/schema.ts';
import type { FetchedSecret } from '../secrets/store.ts';
import { depthOf, MAX_PAYLOAD_DEPTH } from './invocation.ts';

/** How far a delivery's timestamp may be from the receiver's clock, either way. */
const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
/** Signatures read from one `webhook-signature` header: a sender rotating sends two or three. */
const MAX_SIGNATURES = 10;

interface VerifiedDelivery {
  readonly id: string;
  /** webhook-timestamp, in epoch seconds (already checked to be within the tolerance). */
  readonly timestamp: number;
  /** The body, a JSON object: the action's parameters. */
  readonly payload: Record<string, unknown>;
}

/** A delivery the receiver may queue: verified, with its webhook's action and its once-only key. */
export interface CheckedDelivery extends VerifiedDelivery {
  /** The webhook's name, as the path gave it. */
  readonly webhook: string;
  /** The action its deliveries run. */
  readonly action: string;
  /** The webhook's deliveries run in order (one message group). */
  readonly ordered: boolean;
  /** The once-only key (deliveryKey): the queue's deduplication id, the delivery ledger's key. */
  readonly key: string;
}

/** Where the receiver finds the webhooks, and how large a delivery it verifies. */
export interface WebhookDirectory {
  /** The webhooks of the secret; throws 503 when the copy is too stale to say who they are. */
  load(): Promise<Readonly<Record<string, WebhookEntry>>>;
  /** The largest body verified (WEBHOOK_MAX_BODY_BYTES); larger is a 413. */
  readonly maxBodyBytes: number;
}

/**
 * Checks one delivery to `POST /webhooks/{name}`, cheapest check first. Returns it verified, or
 * throws what the sender gets:
 * - 401/`200`: headers missing, a timestamp out of the window, a bad signature, or an unknown
 *   name (the same response for the last two, after the same work)
 * - 413/`430`: a body over the limit
 * - 503/`500`: the webhooks cannot be refreshed
 * - 400/`100`: a signed body that is not a JSON object, or is nested too deep
 *
 * @param bytes the body exactly as received (the signature covers these bytes)
 * @param now ms since the epoch
 */
export async function checkDelivery(
  webhooks: WebhookDirectory,
  name: string,
  bytes: Buffer,
  headers: HeaderMap,
  now: number,
): Promise<CheckedDelivery> {
  const signed = signedHeadersOf(headers, now);
  if (bytes.length > webhooks.maxBodyBytes) throw new PayloadTooLargeError(webhooks.maxBodyBytes);
  const all = await webhooks.load();
  const entry = Object.hasOwn(all, name) ? all[name] : undefined;
  verifySignature(keysFor(all, entry), signed, bytes);
  // Only a verified delivery reaches here: entry is defined (no key of a known webhook
  // matches a delivery to an unknown name), checked again for the type's sake.
  if (!entry) throw new WebhookSignatureError(NO_MATCH);
  const id = signed.id;
  return {
    webhook: name,
    action: entry.action,
    ordered: entry.ordered === true,
    id,
    timestamp: signed.timestamp,
    payload: parsePayload(bytes),
    key: deliveryKey(name, id),
  };
}

/** What the queue gets of a checked delivery: its invocation, deduplication id and group. */
export function invocationOf(delivery: CheckedDelivery) {
  return {
    invocation: {
      action: delivery.action,
      params: delivery.payload,
      source: {
        webhook: delivery.webhook,
        id: delivery.id,
        key: delivery.key,
        timestamp: delivery.timestamp,
      },
    },
    // Each delivery stands alone, unless the webhook asks for its deliveries in order.
    options: {
      deduplicationId: delivery.key,
      groupId: delivery.ordered ? delivery.webhook : delivery.key,
    },
  };
}

const NO_MATCH = 'No matching signature found';

interface SignedHeaders {
  readonly id: string;
  readonly timestamp: number;
  /** The v1 signatures presented, decoded (32 bytes each; others are left out). */
  readonly signatures: readonly Buffer[];
}

/** The signature headers, present and well formed, with a timestamp inside the window. */
function signedHeadersOf(headers: HeaderMap, now: number): SignedHeaders {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (!id || !timestamp || !signature) {
    throw new WebhookSignatureError('The webhook signature headers are missing.');
  }
  // Whole seconds only (the library's parseInt would take "1700000000abc").
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    throw new WebhookSignatureError('webhook-timestamp is not a number of seconds.');
  }
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor(now / 1000);
  if (nowSeconds - seconds > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookSignatureError('Message timestamp too old');
  }
  if (seconds > nowSeconds + WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookSignatureError('Message timestamp too new');
  }
  const signatures = signature
    .split(' ')
    .slice(0, MAX_SIGNATURES)
    .flatMap((versioned) => {
      const [version, value = ''] = versioned.split(',', 2);
      if (version !== 'v1' || !/^[A-Za-z0-9+/]{43}=$/.test(value)) return [];
      return [Buffer.from(value, 'base64')];
    });
  return { id, timestamp: seconds, signatures };
}

/**
 * The keys a delivery is checked against: its webhook's, padded with keys of no webhook to as
 * many as the webhook with the most secrets holds, so that every request, to any name, costs
 * the same number of HMACs. An unknown name gets only keys of no webhook.
 */
export function keysFor(
  all: Readonly<Record<string, WebhookEntry>>,
  entry: WebhookEntry | undefined,
): readonly Buffer[] {
  const table = keyTableOf(all);
  const own = entry ? (table.keys.get(entry) ?? []) : [];
  return [...own, ...DUMMY_KEYS.slice(0, table.slots - own.length)];
}

interface KeyTable {
  readonly keys: ReadonlyMap<WebhookEntry, readonly Buffer[]>;
  /** The most secrets any webhook holds (1 at least). */
  readonly slots: number;
}

/** The decoded keys of one fetched document's webhooks, computed once per document. */
const keyTables = new WeakMap<object, KeyTable>();

function keyTableOf(all: Readonly<Record<string, WebhookEntry>>): KeyTable {
  let table = keyTables.get(all);
  if (!table) {
    const keys = new Map<WebhookEntry, Buffer[]>();
    let slots = 1;
    for (const entry of Object.values(all)) {
      const decoded = webhookSecretsOf(entry).map(webhookKeyOf);
      keys.set(entry, decoded);
      slots = Math.max(slots, decoded.length);
    }
    table = { keys, slots };
    keyTables.set(all, table);
  }
  return table;
}

/**
 * Keys of no webhook, made when the container starts: an unknown name is checked against them,
 * and a webhook with fewer secrets than another has its list padded with them.
 */
const DUMMY_KEYS: readonly Buffer[] = Array.from({ length: MAX_WEBHOOK_SECRETS }, () =>
  randomBytes(32),
);

/**
 * Accepts when any presented v1 signature is the HMAC of any key; every key is computed and
 * every pair compared (constant-time, no early exit), so the time does not tell which matched.
 */
function verifySignature(keys: readonly Buffer[], signed: SignedHeaders, bytes: Buffer): void {
  const prefix = `${signed.id}.${signed.timestamp}.`;
  let matched = false;
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(prefix, 'utf8').update(bytes).digest();
    for (const presented of signed.signatures) {
      matched = timingSafeEqual(expected, presented) || matched;
    }
  }
  if (!matched) throw new WebhookSignatureError(NO_MATCH);
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

interface BoundedWebhooksOptions {
  /** The secret that holds the webhooks, with the time it was fetched. */
  readonly load: () => Promise<FetchedSecret>;
  /** Older than this, the fetched secret no longer says which webhooks and keys are good. */
  readonly maxAgeMs: number;
  /** When the store may fetch again, in ms from now (the response's Retry-After). */
  readonly retryInMs: () => number;
  readonly now: () => number;
  readonly maxBodyBytes: number;
}

const NO_WEBHOOKS: Readonly<Record<string, WebhookEntry>> = Object.freeze({});

/**
 * The webhooks of the secret, held to the same staleness bound as the callers. While the secret
 * cannot be refreshed, the last good copy serves for its TTL plus CALLERS_MAX_STALE_SECONDS.
 * Past that, deliveries get 503, and the sender delivers again later. So a key removed or
 * rotated out stops working, even through a Secrets Manager outage.
 */
export function boundedWebhooks(options: BoundedWebhooksOptions): WebhookDirectory {
  return {
    maxBodyBytes: options.maxBodyBytes,
    load: async () => {
      const { value, fetchedAt } = await options.load();
      if (options.now() - fetchedAt > options.maxAgeMs) {
        throw new WebhooksUnavailableError(options.retryInMs() / 1000);
      }
      return value.webhooks ?? NO_WEBHOOKS;
    },
  };
}

/** The container's webhooks, from the webhooks' secret, with its bound on staleness. */
export const webhookDirectoryOf = perRuntime((runtime: Runtime): WebhookDirectory => {
  const store = runtime.secretsFor('webhooks');
  return boundedWebhooks({
    load: () => store.getFetched(),
    maxAgeMs: runtime.config.secretsTtlMs + runtime.config.callersMaxStaleMs,
    retryInMs: () => store.retryInMs(),
    now: runtime.now,
    maxBodyBytes: runtime.config.webhookMaxBodyBytes,
  });
});
