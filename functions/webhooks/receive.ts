/**
 * POST /webhooks/{name}, deployed: a verified delivery goes to the SQS invocation queue
 * (lib/http/webhook-receiver.ts has the route's rules).
 */
import { publicRoute } from '../../lib/http/public-route.js';
import { functionRoutes } from '../../lib/http/routes/functions.js';
import { webhookReceiver } from '../../lib/http/webhook-receiver.js';
import { getRuntime } from '../../lib/runtime.js';
import { sqsInvocationQueueOf } from '../../lib/webhooks/queue.js';

const runtime = getRuntime();

export const handler = publicRoute(
  functionRoutes.receiveWebhook,
  webhookReceiver(runtime, sqsInvocationQueueOf(runtime)),
  { log: runtime.log },
);
