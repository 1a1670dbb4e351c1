/**
 * Short URLs, `GET|POST /util/v1/shorturl`: stable, as the same long URL
 * always gives the same hash (base62 of its SHA-256).
 */
import { createHash } from 'node:crypto';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import { wantsXml, XML_CONTENT_TYPE } from '../gateway/envelope.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { bodyParams } from './params.ts';
import { badRequest, endpointJson } from './responses.ts';
import { toXmlDocument } from './xml.ts';

const SHORT_URL_BASE = 'https://me2.do/';
const SHORT_HASH_LENGTH = 8;
const MAX_SHORTEN_URL_LENGTH = 4096;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function shortHash(url: string): string {
  let value = createHash('sha256').update(url, 'utf8').digest().readBigUInt64BE(0);
  let hash = '';
  for (let index = 0; index < SHORT_HASH_LENGTH; index++) {
    hash = BASE62.charAt(Number(value % 62n)) + hash;
    value /= 62n;
  }
  return hash;
}

function isAbsoluteHttpUrl(text: string): boolean {
  if (text.length > MAX_SHORTEN_URL_LENGTH) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** `url` from the query, else from a form or JSON body. */
function requestedUrl(request: GatewayRequest): string | undefined | 'bad-json' {
  const fromQuery = request.query.get('url');
  if (fromQuery) return fromQuery;
  if (request.method !== 'POST') return undefined;
  const params = bodyParams(request);
  return params === 'bad-json' ? params : params.get('url');
}

function shorten(request: GatewayRequest): GatewayResponse {
  const url = requestedUrl(request);
  if (url === 'bad-json') return badRequest('The body is not valid JSON.');
  if (!url) return badRequest('url is required');
  if (!isAbsoluteHttpUrl(url)) return badRequest('url must be an absolute http or https URL');
  const hash = shortHash(url);
  const body = {
    message: 'ok',
    result: { hash, url: `${SHORT_URL_BASE}${hash}`, orgUrl: url },
    code: '200',
  };
  if (!wantsXml(request.headers)) return endpointJson(200, body);
  return {
    status: 200,
    headers: { 'content-type': XML_CONTENT_TYPE },
    body: toXmlDocument('result', body),
    origin: 'ENDPOINT',
  };
}

export function shortUrlRoutes(authenticate: Authenticator): ApiRoute[] {
  return ['GET', 'POST'].map((method) => ({
    method,
    path: '/util/v1/shorturl',
    authenticate,
    handle: ({ request }) => shorten(request),
  }));
}
