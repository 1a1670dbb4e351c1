/**
 * Whatever was thrown becomes the uniform error envelope (JSON or XML, by content negotiation);
 * a 5xx is logged with its cause (name, code and message, never a stack). The stack puts the
 * request's carried headers on it, as on every answer (route-stack.ts).
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
      request.response = encodeError(error, negotiateErrorFormat(state.headers));
    },
  };
}
