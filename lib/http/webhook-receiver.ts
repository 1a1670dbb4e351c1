/**
 * POST /webhooks/{name}: a Standard Webhooks delivery, authenticated by its signature, not by a
 * caller token. The body's bytes are checked before anything parses them, cheapest first
 * (lib/webhooks/verify.ts `checkDelivery`: the headers, the timestamp's window, the size, the
 * webhooks' staleness, the HMAC; an unknown name is answered as a bad signature); a verified
 * delivery is handed to the invocation queue and answered 202 at once. A delivery sent twice
 * (same webhook-id) runs its action once: the consumer claims each delivery in the ledger before
 * running it (lib/webhooks/ledger.ts). The queue is the function's to choose: SQS deployed, the
 * consumer's code in process locally. The request line names the webhook and the delivery.
 */
import type { NamePath } from '../core/schemas.ts';
import type { Runtime } from '../runtime.ts';
import type { InvocationQueue } from '../webhooks/queue.ts';
import { checkDelivery, invocationOf, webhookDirectoryOf } from '../webhooks/verify.ts';
import { json } from './responses.ts';
import type { RouteHandler } from './route-stack.ts';

export function webhookReceiver(
  runtime: Runtime,
  queue: InvocationQueue,
): RouteHandler<undefined, Record<string, never>, NamePath> {
  const webhooks = webhookDirectoryOf(runtime);
  return async (request) => {
    const name = request.path.name;
    request.target({ webhook: name });
    const delivery = await checkDelivery(
      webhooks,
      name,
      request.bytes,
      request.headers,
      runtime.now(),
    );
    request.target({ deliveryId: delivery.id });
    const { invocation, options } = invocationOf(delivery);
    await queue.enqueue(invocation, options);
    request.log.info('webhook accepted', { webhook: name, webhookId: delivery.id });
    return json(202, { accepted: true, id: delivery.id });
  };
}
