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

export function requestLog(functionName: string): HttpMiddleware {
  const done = ({ event: state, response, error }: HttpMiddyRequest) => {
    const status = response?.statusCode;
    // What the error envelope answered a thrown error with.
    const failure = error && toServiceError(error);
    const fields = {
      method: state.method,
      route: state.apiGatewayEvent.routeKey,
      status,
      durationMs: Math.round(performance.now() - state.startedAt),
      ...state.targetFields(),
      // An error answer says why, on the same line: its code and a reason that holds no value.
      ...(failure && { errorCode: failure.code, reason: failure.reason }),
    };
    const metrics = state.metrics.take(functionName);
    if (status !== undefined && status >= 500) {
      logWithMetrics(state.log, 'error', 'request failed', fields, metrics);
    } else logWithMetrics(state.log, 'info', 'request', fields, metrics);
  };
  return { after: done, onError: done };
}
