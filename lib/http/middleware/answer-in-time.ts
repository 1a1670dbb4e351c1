/**
 * The last-resort guard around the whole stack: whatever hangs (an upstream call, a slow secret
 * fetch in the caller check), the caller gets the 504/`510` envelope before the function's own
 * timeout, never the runtime's timeout error. middy's own early timeout races only the
 * handler, not the middlewares before it.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { UpstreamTimeoutError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { encodeError, negotiateErrorFormat } from '../envelope.js';
import { headersOf } from '../request.js';
import type { HttpResponse } from '../responses.js';

/**
 * Kept back from the function's remaining time. Smaller than the upstream client's reserve, so
 * that an upstream call's own deadline normally answers first.
 */
const GUARD_RESERVE_MS = 100;

export function answerInTime(
  work: Promise<HttpResponse>,
  event: APIGatewayProxyEventV2,
  context: Context,
  log: Logger,
): Promise<HttpResponse> {
  if (typeof context.getRemainingTimeInMillis !== 'function') return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<HttpResponse>((resolve) => {
    timer = setTimeout(
      () => {
        log.error('no answer before the function timeout', { requestId: context.awsRequestId });
        resolve(encodeError(new UpstreamTimeoutError(), negotiateErrorFormat(headersOf(event))));
      },
      Math.max(context.getRemainingTimeInMillis() - GUARD_RESERVE_MS, 0),
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
