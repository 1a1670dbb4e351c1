/**
 * POST /webhooks/{name}, deployed: a verified delivery goes to the SQS invocation queue
 * (lib/http/webhook-receiver.ts has the route's rules).
 */
import { bind } from '../../lib/http/bind.ts';
import { pathParams } from '../../lib/http/middleware/path-params.ts';
import { functionRoutes } from '../../lib/http/routes/functions.ts';
import { webhookReceiver } from '../../lib/http/webhook-receiver.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { sqsInvocationQueueOf } from '../../lib/webhooks/queue.ts';

const runtime = getRuntime();

export const handler = bind(
  functionRoutes.receiveWebhook,
  webhookReceiver(runtime, sqsInvocationQueueOf(runtime)),
  { log: runtime.log, pathParams },
);
