/**
 * A middleware of the stack run as it runs in a function: in a middy stack of its own, whose
 * event is a request's state made from an API Gateway event (lib/http/request-state.ts).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createLogger } from '../../../../../lib/core/log.ts';
import type { HttpMiddleware } from '../../../../../lib/http/middleware/middleware.ts';
import { RequestState } from '../../../../../lib/http/request-state.ts';
import { type HttpResponse, json, withAnswerHeaders } from '../../../../../lib/http/responses.ts';
import { type EventChanges, httpEvent, lambdaContext } from '../../../../helpers/lambda.ts';

/** A request's state, from the sample search event with these changes; its log lines kept. */
export function stateOf(changes: EventChanges = {}, lambda: Context = lambdaContext()) {
  const lines: string[] = [];
  const log = createLogger({ function: 'test' }, (line) => lines.push(line));
  const state = new RequestState(httpEvent('jobs-search.json', changes), lambda, log);
  return { state, lines, logged: () => lines.map((line) => JSON.parse(line)) };
}

/** What the handler saw of the state when it ran. */
export type Handler = (state: RequestState) => Promise<HttpResponse>;

/**
 * The middlewares in a middy stack of their own (middy's own timeout off, as in routeStack);
 * its answer carries the request's carried headers, as routeStack puts them on every answer.
 */
export function ownStack(
  middlewares: readonly HttpMiddleware[],
  handler: Handler = async () => json(200, { ok: true }),
) {
  const stack = middy<RequestState, HttpResponse, Error, Context>({ timeoutEarlyInMillis: 0 });
  for (const middleware of middlewares) stack.use(middleware);
  const handle = stack.handler(handler);
  return async (state: RequestState) => {
    const answer = await handle(state, state.lambda);
    return state.carried.headers ? withAnswerHeaders(answer, state.carried.headers) : answer;
  };
}
