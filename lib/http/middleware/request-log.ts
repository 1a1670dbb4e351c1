/**
 * One log line per request, when it ends (answered or failed): method, route, status, duration,
 * what it changed or stored (its targets), an error's code and reason, and the request's own metrics
 * riding on the same line
 * (lib/core/metrics.ts). Any metrics that cannot share it go out on lines of their own, from the
 * request's logger.
 */
import { toServiceError } from '../../core/errors.ts';
import { logWithMetrics } from '../../core/log.ts';
import type { HttpMiddleware, HttpMiddyRequest } from './middleware.ts';

/** What the error envelope answered a thrown error with: its code, and why (no value). */
function failureOf(error: unknown) {
  const { code, reason } = toServiceError(error);
  return { errorCode: code, reason };
}

export function requestLog(functionName: string): HttpMiddleware {
  const done = ({ event: state, response, error }: HttpMiddyRequest) => {
    const status = response?.statusCode;
    const fields = {
      method: state.method,
      route: state.apiGatewayEvent.routeKey,
      status,
      durationMs: Math.round(performance.now() - state.startedAt),
      ...state.targetFields(),
      // An error answer says why, on the same line: its code and a reason that holds no value.
      ...(error && failureOf(error)),
    };
    const metrics = state.metrics.take(functionName);
    if (status !== undefined && status >= 500) {
      logWithMetrics(state.log, 'error', 'request failed', fields, metrics);
    } else logWithMetrics(state.log, 'info', 'request', fields, metrics);
  };
  return { after: done, onError: done };
}
