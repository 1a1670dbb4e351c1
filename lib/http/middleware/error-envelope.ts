/**
 * Whatever was thrown becomes the uniform error envelope (JSON or XML, by content negotiation);
 * a 5xx is logged with its cause (name, code and message, never a stack). The answer carries the
 * request's own response headers too (its usage plans' RateLimit fields).
 */
import { toServiceError } from '../../core/errors.ts';
import { describeError } from '../../core/log.ts';
import { encodeError, negotiateErrorFormat } from '../envelope.ts';
import type { HttpMiddleware } from './middleware.ts';

export function errorEnvelope(): HttpMiddleware {
  return {
    onError: (request) => {
      const state = request.event;
      const error = toServiceError(request.error);
      if (error.status >= 500) state.log.error('error', describeError(request.error));
      state.failure = { errorCode: error.code, reason: error.reason };
      const encoded = encodeError(error, negotiateErrorFormat(state.headers));
      // The request's own headers (its RateLimit fields), under the error's own.
      request.response = { ...encoded, headers: { ...state.responseHeaders, ...encoded.headers } };
    },
  };
}
