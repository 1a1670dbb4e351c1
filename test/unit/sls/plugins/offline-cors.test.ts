/**
 * CORS locally as API Gateway applies it (sls/plugins/offline-cors.ts): on a real hapi server,
 * as serverless offline runs one, with serverless offline's own CORS echo reproduced.
 */
import { createRequire } from 'node:module';
import type { Request, ResponseObject, ResponseToolkit, Server } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCors } from '../../../../sls/plugins/offline-cors.ts';
import { corsConfigOf, problemsOf } from '../../../../sls/resolvers/cors.ts';
import type { CorsSetting } from '../../../../sls/serverless.ts';

const require = createRequire(import.meta.url);
/** hapi, as serverless offline loads it. */
const Hapi: typeof import('@hapi/hapi') = require('@hapi/hapi');

const APP = 'https://app.example.com';

/** A hapi server with one route, serverless offline's default echo of any origin, and ours. */
async function serverWith(cors: CorsSetting): Promise<Server> {
  const server = new Hapi.Server({ host: '127.0.0.1', port: 0 });
  server.route({
    method: 'GET',
    path: '/jobs',
    handler: (_request, h) => h.response({ ok: 1 }),
  });
  // serverless offline's own (HttpServer.js): any origin echoed, with credentials.
  server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
    const origin = request.headers.origin;
    const response = request.response as ResponseObject;
    if (typeof origin === 'string' && origin) {
      response.headers['access-control-allow-origin'] = origin;
      response.headers['access-control-allow-credentials'] = 'true';
    }
    return h.continue;
  });
  installCors(server, cors);
  await server.start();
  return server;
}

const corsOf = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe('the stage parameter corsAllowedOrigins', () => {
  it('is no configuration when empty, and a configuration of its origins otherwise', () => {
    expect(corsConfigOf('')).toBe(false);
    expect(corsConfigOf(` ${APP} , http://localhost:5173 `)).toMatchObject({
      allowedOrigins: [APP, 'http://localhost:5173'],
      allowCredentials: false,
    });
  });

  it('names an origin that is not one', () => {
    expect(problemsOf(`${APP}/`)).toHaveLength(1);
    expect(problemsOf('app.example.com')).toHaveLength(1);
    expect(problemsOf(`*,${APP}`)).toEqual(['corsAllowedOrigins: "*" stands alone (any origin).']);
    expect(problemsOf(`${APP},*`.replace(',*', ''))).toEqual([]);
  });
});

describe('CORS on the local server', () => {
  let none: Server;
  let configured: Server;
  beforeAll(async () => {
    none = await serverWith(false);
    configured = await serverWith(corsConfigOf(APP));
  });
  afterAll(async () => {
    await none.stop();
    await configured.stop();
  });

  it('adds nothing without a configuration, and leaves a preflight to the routes', async () => {
    const answer = await fetch(`${none.info.uri}/jobs`, { headers: { origin: APP } });
    expect(corsOf(answer)).toEqual({});
    const preflight = await fetch(`${none.info.uri}/jobs`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).not.toBe(204);
    expect(corsOf(preflight)).toEqual({});
  });

  it('answers a preflight from an allowed origin with what it may send, another with nothing', async () => {
    const allowed = await fetch(`${configured.info.uri}/jobs`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    expect(allowed.status).toBe(204);
    expect(corsOf(allowed)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
      'access-control-allow-headers': 'Authorization,Content-Type,Accept',
      'access-control-max-age': '600',
    });
    const other = await fetch(`${configured.info.uri}/jobs`, {
      method: 'OPTIONS',
      headers: { origin: 'https://other.example', 'access-control-request-method': 'GET' },
    });
    expect(other.status).toBe(204);
    expect(corsOf(other)).toEqual({});
  });

  it('lets an allowed origin read an answer, not another', async () => {
    const allowed = await fetch(`${configured.info.uri}/jobs`, { headers: { origin: APP } });
    expect(corsOf(allowed)).toMatchObject({ 'access-control-allow-origin': APP });
    expect(corsOf(allowed)['access-control-allow-credentials']).toBeUndefined();
    const other = await fetch(`${configured.info.uri}/jobs`, {
      headers: { origin: 'https://other.example' },
    });
    expect(corsOf(other)).toEqual({});
  });
});
