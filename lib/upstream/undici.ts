/**
 * The two parts of undici this package uses, imported from their own modules: the package
 * root also loads fetch, WebSocket, the cache and the mock layers, which add about 220 KB to
 * every bundle and about 60 ms to every cold start (docs/benchmarks.md).
 */
import type { Dispatcher } from 'undici';
import requestModule from 'undici/lib/api/api-request.js';
import AgentModule from 'undici/lib/dispatcher/agent.js';

export type { Dispatcher };

export const Agent = AgentModule as unknown as typeof import('undici').Agent;

type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

const requestFn = requestModule as unknown as RequestFn;

/** `dispatcher.request(options)`, for any Dispatcher (an Agent, or a MockAgent in tests). */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions) {
  return requestFn.call(dispatcher, options);
}
