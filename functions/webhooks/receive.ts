/**
 * POST /webhooks/{name}: a Standard Webhooks delivery. Authenticated by
 * its signature, not by a caller token. The body is read raw (no JSON parser runs before the
 * signature is verified); a verified delivery is handed to the invocation queue and answered
 * 202 at once. A delivery sent twice (same webhook-id) runs its action once: the consumer
 * claims each delivery in the ledger (lib/webhooks/ledger.ts) before running it.
 */

import { definitionOf, httpFunction } from '../../lib/http/http-function.js';
import { bodyBytes } from '../../lib/http/request.js';
import { json } from '../../lib/http/responses.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';
import { getRuntime } from '../../lib/runtime.js';
import { invocationQueueOf } from '../../lib/webhooks/setup.js';
import { deliveryKey, verifyDelivery, webhookEntry } from '../../lib/webhooks/verify.js';

const runtime = getRuntime();
const queue = invocationQueueOf(runtime);
const webhooks = runtime.secretsFor('webhooks');

export const handler = httpFunction(
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
