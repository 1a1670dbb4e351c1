/**
 * POST /webhooks/{name}: a Standard Webhooks delivery, authenticated by its signature, not by a
 * caller token. The body's bytes are verified before anything parses them; a verified delivery
 * is handed to the invocation queue and answered 202 at once. A delivery sent twice (same
 * webhook-id) runs its action once: the consumer claims each delivery in the ledger before
 * running it (lib/webhooks/ledger.ts). The queue is the function's to choose: SQS deployed, the
 * consumer's code in process locally. The request line names the webhook and the delivery.
 */
import type { NamePath } from '../core/schemas.js';
import type { Runtime } from '../runtime.js';
import type { InvocationQueue } from '../webhooks/queue.js';
import { deliveryKey, verifyDelivery, webhookEntry } from '../webhooks/verify.js';
import { json } from './responses.js';
import type { RouteHandler } from './route-stack.js';

export function webhookReceiver(
  runtime: Runtime,
  queue: InvocationQueue,
): RouteHandler<undefined, Record<string, never>, NamePath> {
  const webhooks = runtime.secretsFor('webhooks');
  return async (request) => {
    const name = request.path.name;
    request.target({ webhook: name });
    const entry = webhookEntry(await webhooks.get(), name);
    const delivery = verifyDelivery(entry, request.bytes, request.headers);
    request.target({ deliveryId: delivery.id });
    const key = deliveryKey(name, delivery.id);
    await queue.enqueue(
      {
        action: entry.action,
        params: delivery.payload,
        source: { webhook: name, id: delivery.id, key, timestamp: delivery.timestamp },
      },
      // Each delivery stands alone, unless the webhook asks for its deliveries in order.
      { deduplicationId: key, groupId: entry.ordered ? name : key },
    );
    request.log.info('webhook accepted', { webhook: name, webhookId: delivery.id });
    return json(202, { accepted: true, id: delivery.id });
  };
}
