/**
 * The body limit: the platform gateway's is 10 MB, but a synchronous Lambda invocation carries
 * at most 6 MB, so 6 MB is the documented limit and bigger bodies are refused here (413/`430`),
 * before anything is sent upstream. (Locally, serverless offline refuses bodies over 10 MB
 * itself; sls/plugins/offline-envelope.ts gives that answer the same envelope.)
 */
import { PayloadTooLargeError } from '../../core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../core/lambda-limits.ts';
import type { HttpMiddleware } from './middleware.ts';

export const MAX_BODY_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES;

export function bodyLimit(): HttpMiddleware {
  return {
    before: ({ event: state }) => {
      if (state.body.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    },
  };
}
