/**
 * A queued invocation, as it travels on the invocation queue: `{"action","params"}`, with the
 * delivery it came from. Params too large for a message stay in the body store, and the message
 * carries their key and SHA-256. The consumer runs nothing from the store that does not match it.
 */
import * as z from 'zod/mini';
import { nameSchema as name } from '../core/schemas.ts';

export const invocationSchema = z.object({
  action: name,
  params: z._default(z.record(z.string(), z.unknown()), {}),
  /**
   * Where params too large for a message were put (body-store.ts), and the hex SHA-256 of their
   * text as put. A body that does not match is never run. A message without the hash is malformed.
   */
  paramsRef: z.optional(
    z.object({
      bucket: z.string(),
      key: z.string(),
      sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256')),
    }),
  ),
  /**
   * The webhook delivery it came from: the ledger's key (the receiver's deliveryKey) and the
   * delivery's timestamp in epoch seconds, which sets how long the key is remembered.
   */
  source: z.optional(
    z.object({
      webhook: z.string(),
      id: z.string(),
      key: z.optional(z.string()),
      timestamp: z.optional(z.number()),
    }),
  ),
});
export type Invocation = z.input<typeof invocationSchema>;
export type ParsedInvocation = z.output<typeof invocationSchema>;

/** The invocation a queued message carries, or what is wrong with the message. */
export function readInvocation(body: string): ParsedInvocation | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const parsed = invocationSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

/**
 * The most a message carries itself; larger params go to the body store. 256 KiB is a quarter of
 * what SQS takes (1 MiB), so a batch of 10 messages stays well inside the 6 MB of a Lambda
 * invocation.
 */
export const MAX_INLINE_MESSAGE_BYTES = 256 * 1024;

/**
 * How deep a payload may nest; the receiver refuses deeper ones (400/`100`). The consumer
 * serializes params again to send them, and JSON.stringify recurses: a payload nested thousands of
 * levels deep overflows the stack. Real webhook payloads nest a few levels.
 */
export const MAX_PAYLOAD_DEPTH = 256;

/** The nesting depth of a parsed JSON value (a scalar is 0), counted without recursion. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_PAYLOAD_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
