/**
 * The one part of undici this package uses, imported from its own module: the Agent, whose
 * dispatch API every call goes through (client.ts, `dispatchOnce`). The package root also
 * loads fetch, WebSocket, the cache and the mock layers, which add about 220 KB to every bundle
 * and about 60 ms to every cold start; its `request` API adds a response stream per call
 * (docs/benchmark-method.md).
 */
import type { Dispatcher } from 'undici';
import AgentModule from 'undici/lib/dispatcher/agent.js';

export type { Dispatcher };

export const Agent = AgentModule as unknown as typeof import('undici').Agent;
