/**
 * POST /webhooks/{name}, deployed: a verified delivery goes to the SQS invocation queue
 * (lib/http/webhook-receiver.ts has the route's rules).
 */
import { webhookReceiver } from '../../lib/http/webhook-receiver.js';
import { getRuntime } from '../../lib/runtime.js';
import { sqsInvocationQueueOf } from '../../lib/webhooks/queue.js';

const runtime = getRuntime();

export const handler = webhookReceiver(runtime, sqsInvocationQueueOf(runtime));
