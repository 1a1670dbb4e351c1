/**
 * POST /webhooks/{name} in local runs (`npm start`, `serverless invoke local`), where no SQS
 * runs: a verified delivery is run by the consumer's own code in this process, right after the
 * 202 (serverless.yml picks this handler locally; the deployed bundle carries none of it).
 */
import { bind } from '../../lib/http/bind.ts';
import { pathParams } from '../../lib/http/middleware/path-params.ts';
import { functionRoutes } from '../../lib/http/routes/functions.ts';
import { webhookReceiver } from '../../lib/http/webhook-receiver.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { inProcessInvocationQueueOf } from '../../lib/webhooks/setup.ts';

const runtime = getRuntime();

export const handler = bind(
  functionRoutes.receiveWebhook,
  webhookReceiver(runtime, inProcessInvocationQueueOf(runtime)),
  { log: runtime.log, pathParams },
);
