// A local-only serverless plugin (listed after serverless-offline): CORS as API Gateway applies
// an HTTP API's CORS configuration (provider.httpApi.cors, from the corsAllowedOrigins stage
// parameter: sls/resolvers/cors.ts), instead of serverless offline's own handling, which echoes
// any Origin with credentials allowed when none is configured, answers a preflight 200 with the
// route's 405 body, and echoes any origin on answers even when a list is configured.
//
// - No configuration (the default): no answer carries a CORS header, and a preflight is an
//   OPTIONS request like any other (the routes answer it: a 405 with Allow, or a web action).
// - A configuration: a preflight (OPTIONS with Origin and Access-Control-Request-Method) is
//   answered 204 before any route, with the allowed methods, headers and max age when its origin
//   is allowed, with no CORS header when it is not; any other answer to an allowed origin carries
//   Access-Control-Allow-Origin (and the exposed headers), to another origin none.
//
// The function still sees the request's Origin header (its event is built from the raw headers).
// With a configuration, the CORS headers a function returns are replaced, as API Gateway ignores
// them; without one, they pass through.
import type { Server } from '@hapi/hapi';
import { problemsOf } from '../resolvers/cors.ts';
import {
  type CorsConfig,
  type CorsSetting,
  offlineServer,
  type Plugin,
  type Serverless,
} from '../serverless.ts';

declare module '@hapi/hapi' {
  /** What the request's two steps below hand each other: its Origin, and whether a preflight. */
  interface RequestApplicationState {
    corsOrigin?: string;
    corsPreflight?: boolean;
  }
}

/** The configuration as serverless reads provider.httpApi.cors: false, true, or an object. */
function configOf(cors: CorsSetting): CorsConfig | undefined {
  if (!cors) return undefined;
  if (cors === true) {
    // serverless's own defaults for `cors: true`.
    return {
      allowedOrigins: ['*'],
      allowedHeaders: [
        'Content-Type',
        'X-Amz-Date',
        'Authorization',
        'X-Api-Key',
        'X-Amz-Security-Token',
        'X-Amz-User-Agent',
      ],
      allowedMethods: ['OPTIONS', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    };
  }
  return cors;
}

/** The Access-Control-Allow-Origin value for this origin, or undefined when it is not allowed. */
function allowedOriginOf(config: CorsConfig, origin: string): string | undefined {
  const origins = config.allowedOrigins ?? [];
  if (origins.includes('*')) return '*';
  return origins.includes(origin) ? origin : undefined;
}

/** The headers of the answer to a preflight from `origin` (none when it is not allowed). */
function preflightHeaders(config: CorsConfig, origin: string): Record<string, string> {
  const allowed = allowedOriginOf(config, origin);
  if (!allowed) return {};
  const headers: Record<string, string> = { 'access-control-allow-origin': allowed };
  if (allowed !== '*') headers.vary = 'Origin';
  if (config.allowedMethods?.length) {
    headers['access-control-allow-methods'] = config.allowedMethods.join(',');
  }
  if (config.allowedHeaders?.length) {
    headers['access-control-allow-headers'] = config.allowedHeaders.join(',');
  }
  if (config.maxAge !== undefined) headers['access-control-max-age'] = String(config.maxAge);
  if (config.allowCredentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}

/** The CORS headers of any other answer to `origin` (none when it is not allowed). */
function responseHeaders(config: CorsConfig, origin: string): Record<string, string> {
  const allowed = allowedOriginOf(config, origin);
  if (!allowed) return {};
  const headers: Record<string, string> = { 'access-control-allow-origin': allowed };
  if (allowed !== '*') headers.vary = 'Origin';
  if (config.exposedResponseHeaders?.length) {
    headers['access-control-expose-headers'] = config.exposedResponseHeaders.join(',');
  }
  if (config.allowCredentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}

const CORS_HEADER = /^access-control-/i;

/**
 * Installs the handling on serverless offline's hapi server: the Origin is taken from the
 * request before serverless offline and hapi look at it (so neither adds a CORS header), a
 * preflight is answered as configured, and other answers get the configured headers.
 */
export function installCors(server: Server, cors: CorsSetting): void {
  const config = configOf(cors);
  server.ext('onRequest', (request, h) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return h.continue;
    request.app.corsOrigin = origin;
    delete request.headers.origin;
    const preflight =
      request.method === 'options' && request.headers['access-control-request-method'];
    if (!config || !preflight) return h.continue;
    request.app.corsPreflight = true;
    const reply = h.response().code(204);
    for (const [name, value] of Object.entries(preflightHeaders(config, origin))) {
      reply.header(name, value);
    }
    return reply.takeover();
  });
  server.ext('onPreResponse', (request, h) => {
    const origin = request.app.corsOrigin;
    if (origin === undefined || request.app.corsPreflight) return h.continue;
    const response = request.response;
    const headers =
      'isBoom' in response && response.isBoom
        ? response.output.headers
        : 'headers' in response
          ? response.headers
          : undefined;
    if (!config || !headers) return h.continue;
    // With a CORS configuration, API Gateway ignores the CORS headers a function returns.
    for (const name of Object.keys(headers)) if (CORS_HEADER.test(name)) delete headers[name];
    Object.assign(headers, responseHeaders(config, origin));
    return h.continue;
  });
}

export default class OfflineCors implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:offline:start:init': () => this.install() };
  }

  install(): void {
    const wrong = problemsOf(this.serverless.service.custom?.corsAllowedOrigins);
    if (wrong.length > 0) throw new this.serverless.classes.Error(wrong.join('\n'));
    const server = offlineServer(this.serverless);
    if (!server) return;
    installCors(server, this.serverless.service.provider.httpApi?.cors);
  }
}
