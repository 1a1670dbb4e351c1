/**
 * One log line per request, when it ends (answered or failed): method, route, status, duration,
 * and the request's metrics riding on the same line (lib/core/metrics.ts). Any metrics that cannot
 * share it go out on lines of their own.
 */
import { defaultSink, type Logger } from '../../core/log.js';
import { takeMetrics } from '../../core/metrics.js';
import { type HttpMiddleware, type HttpMiddyRequest, stateOf } from './request-state.js';

export function requestLog(baseLog: Logger, functionName: string): HttpMiddleware {
  const done = (request: HttpMiddyRequest) => {
    const state = stateOf(request, baseLog);
    const status = request.response?.statusCode;
    const fields = {
      method: request.event.requestContext?.http?.method,
      route: request.event.routeKey,
      status,
      durationMs: Math.round(performance.now() - state.startedAt),
    };
    const [metrics, ...more] = takeMetrics(functionName);
    if (status !== undefined && status >= 500) state.log.error('request failed', fields, metrics);
    else state.log.info('request', fields, metrics);
    for (const document of more) defaultSink(JSON.stringify(document));
  };
  return {
    before: (request) => {
      stateOf(request, baseLog);
    },
    after: done,
    onError: done,
  };
}
