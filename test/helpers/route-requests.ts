/**
 * Every HTTP function's module and one request each route accepts: the fuzz test mutates them,
 * the caller tests send them with callers of every scope. A route with no request here takes its
 * sample event's (events/), so that a new route's sample event is its request.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Route } from '../../lib/http/routes/route.ts';
import { localHandlerOf } from '../../sls/function-entry.ts';
import { FUNCTIONS } from '../../sls/functions.ts';
import { sampleEvent } from './lambda.ts';

/** Every HTTP function's handler module as a local run loads it (the function table's). */
export const MODULES: Record<string, string> = Object.fromEntries(
  Object.values(FUNCTIONS)
    .filter((fn) => fn.routes.length > 0)
    .map((fn) => [fn.name, localHandlerOf(fn)]),
);
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** A request each route accepts, so that mutations of it reach the upstream too. */
export interface Valid {
  readonly path?: Record<string, string>;
  readonly query?: [string, string][];
  readonly body?: string;
  readonly contentType?: string;
  readonly method?: string;
}
const JSON_TYPE = 'application/json';

/** The request of a sample event of events/, by its route key. */
function sampleRequests(): Record<string, Valid> {
  const files = readdirSync(path.resolve(import.meta.dirname, '../../events'));
  const requests: Record<string, Valid> = {};
  for (const file of files.filter((name) => name.endsWith('.json'))) {
    const event = sampleEvent(file);
    // Only an HTTP route's ("GET /jobs"): not the catch-all's, nor a queue's or a schedule's.
    if (!/^[A-Z]+ \//.test(event.routeKey ?? '')) continue;
    const contentType = event.headers?.['content-type'];
    requests[event.routeKey] = {
      ...(event.pathParameters && { path: event.pathParameters as Record<string, string> }),
      ...(event.rawQueryString && { query: [...new URLSearchParams(event.rawQueryString)] }),
      ...(event.body !== undefined && { body: event.body }),
      ...(contentType && { contentType }),
      method: event.requestContext.http.method,
    };
  }
  return requests;
}

export const VALID: Record<string, Valid> = {
  ...sampleRequests(),
  'GET /health': {},
  'GET /jobs': {
    query: [
      ['page', '1'],
      ['limit', '5'],
    ],
  },
  'POST /jobs/search': {
    body: '{"searchType":"url","searchKeyword":"demo"}',
    contentType: JSON_TYPE,
  },
  'POST /jobs/cancel-reserved': {
    body: '{"searchType":"memo","searchKeyword":"nightly"}',
    contentType: JSON_TYPE,
  },
  'PATCH /jobs/{instanceId}/cancel': { path: { instanceId: '2810017' } },
  'PATCH /jobs/{instanceId}/stop': { path: { instanceId: '2810016' } },
  'GET /jobs/{instanceId}/report': { path: { instanceId: '2810001' } },
  'ANY /actions/{name}': {
    path: { name: 'hello' },
    method: 'POST',
    body: '{"name":"Fuzz"}',
    contentType: JSON_TYPE,
  },
  'POST /triggers/{name}': { path: { name: 'nightly' }, body: '{"n":1}', contentType: JSON_TYPE },
  'POST /webhooks/{name}': { path: { name: 'demo' }, body: '{"n":1}', contentType: JSON_TYPE },
  'POST /translate': {
    body: '{"source":"ko","target":"en","text":"안녕하세요"}',
    contentType: JSON_TYPE,
  },
  'POST /tts': { body: '{"speaker":"clara","text":"hi"}', contentType: JSON_TYPE },
  'POST /stt': {
    query: [['lang', 'Eng']],
    body: 'RIFF0000WAVE',
    contentType: 'application/octet-stream',
  },
  'GET /maps/static': {
    query: [
      ['w', '64'],
      ['h', '64'],
      ['center', '127.1054,37.3595'],
      ['level', '12'],
    ],
  },
  'GET /maps/tiles/{mapType}/{z}/{x}/{tile}': {
    path: { mapType: 'basic', z: '10', x: '873', tile: '397@2x.png' },
  },
  'GET /maps/directions': {
    query: [
      ['start', '127.1058,37.3597'],
      ['goal', '129.0759,35.1794'],
    ],
  },
  'GET /maps/places': {
    query: [
      ['query', '시청'],
      ['coordinate', '126.978,37.566'],
    ],
  },
  'GET /maps/geocode': { query: [['query', '불정로 6']] },
  'GET /maps/reverse-geocode': {
    query: [
      ['coords', '127.1054,37.3595'],
      ['output', 'json'],
    ],
  },
  'GET /captcha/image/key': {},
  'GET /captcha/image': { query: [['key', 'abcdef0123456789']] },
  'POST /captcha/image/verify': {
    body: '{"key":"abcdef0123456789","value":"ABC"}',
    contentType: JSON_TYPE,
  },
  'GET /captcha/audio/key': {},
  'GET /captcha/audio': { query: [['key', 'abcdef0123456789']] },
  'POST /captcha/audio/verify': {
    body: '{"key":"abcdef0123456789","value":"123"}',
    contentType: JSON_TYPE,
  },
  'GET /shorturl': { query: [['url', 'https://example.com/a']] },
  'POST /shorturl': { body: '{"url":"https://example.com/a"}', contentType: JSON_TYPE },
  'POST /trends': {
    body: '{"startDate":"2026-01-01","endDate":"2026-02-01","timeUnit":"month","keywordGroups":[{"groupName":"g","keywords":["k"]}]}',
    contentType: JSON_TYPE,
  },
  'GET /openapi.json': {},
  'GET /usage': {},
  'GET /docs': {},
  'GET /docs/{asset}': { path: { asset: 'init.js' } },
};

/** The route's valid request as API Gateway hands it to the function, with this Authorization. */
export function validEvent(
  route: Pick<Route, 'method' | 'path'>,
  authorization: string | undefined,
): APIGatewayProxyEventV2 {
  const valid = VALID[`${route.method} ${route.path}`] ?? {};
  const event = sampleEvent('jobs-list.json');
  const params = valid.path ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
    encodeURIComponent(params[n] ?? ''),
  );
  event.routeKey = `${route.method} ${route.path}`;
  event.rawPath = path;
  event.requestContext.http.method =
    valid.method ?? (route.method === 'ANY' ? 'POST' : route.method);
  event.requestContext.http.path = path;
  event.pathParameters = valid.path ? { ...valid.path } : (undefined as never);
  event.rawQueryString = (valid.query ?? [])
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  event.headers = {};
  if (authorization !== undefined) event.headers.authorization = authorization;
  if (valid.contentType) event.headers['content-type'] = valid.contentType;
  if (valid.body === undefined) delete event.body;
  else event.body = valid.body;
  event.isBase64Encoded = false;
  return event;
}
