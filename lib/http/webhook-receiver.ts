/**
 * POST /webhooks/{name}: a Standard Webhooks delivery, authenticated by its signature, not by a
 * caller token. The body is read raw (no JSON parser runs before the signature is verified); a
 * verified delivery is handed to the invocation queue and answered 202 at once. A delivery sent
 * twice (same webhook-id) runs its action once: the consumer claims each delivery in the ledger
 * before running it (lib/webhooks/ledger.ts). The queue is the function's to choose: SQS
 * deployed, the consumer's code in process locally.
 */
import type { Runtime } from '../runtime.js';
import type { InvocationQueue } from '../webhooks/queue.js';
import { deliveryKey, verifyDelivery, webhookEntry } from '../webhooks/verify.js';
import { definitionOf, httpFunction } from './http-function.js';
import { bodyBytes } from './request.js';
import { json } from './responses.js';
import { functionRoutes } from './routes/functions.js';

export function webhookReceiver(runtime: Runtime, queue: InvocationQueue) {
  const webhooks = runtime.secretsFor('webhooks');
  return httpFunction(
    {
      ...definitionOf(functionRoutes.receiveWebhook),
      // The route's raw body is read by the handler itself, before any parser: as bytes.
      rawBody: undefined,
      log: runtime.log.child({ function: 'receiveWebhook' }),
    },
    async (request) => {
      const name = request.path.name;
      const entry = webhookEntry(await webhooks.get(), name);
      const delivery = verifyDelivery(entry, bodyBytes(request.event), request.headers);
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
    },
  );
}
