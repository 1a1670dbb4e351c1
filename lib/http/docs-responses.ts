/**
 * The answers of the reference's routes (GET /docs, GET /docs/{asset}) as plain functions of the
 * request's headers: the page with its Content-Security-Policy, and each renderer file gzipped
 * (about a fifth of its size: Swagger UI's script is 1.5 MB as it is) unless the client refuses
 * gzip, which gets 406. The routes answer without a token: a flood of them should cost little.
 */
import { NotAcceptableError } from '../core/errors.ts';
import type { HeaderMap } from '../core/headers.ts';
import { rendererFile } from './docs-assets.ts';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  type DocsAssetName,
  docsInitScript,
  docsPageHtml,
} from './docs-page.ts';
import type { HttpResponse } from './responses.ts';

/**
 * Whether Accept-Encoding takes gzip (RFC 9110, 12.5.3): no Accept-Encoding at all (then any
 * coding is acceptable); `gzip` (or `x-gzip`) with a weight above 0, else `*` with one.
 * `gzip;q=0`, or `identity` alone, refuses it.
 */
function takesGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return true;
  const weights = new Map<string, number>();
  for (const entry of (acceptEncoding ?? '').split(',')) {
    const [coding = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((param) => /^q\s*=/.test(param));
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
    weights.set(coding, Number.isNaN(weight) ? 0 : weight);
  }
  const weight = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0;
  return weight > 0;
}

/** The files change with the package only: a browser may keep them an hour. */
const FILE_CACHE = 'public, max-age=3600';

export function docsPage(): HttpResponse {
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    },
    body: docsPageHtml(),
  };
}

export function docsAsset(name: DocsAssetName, headers: HeaderMap): HttpResponse {
  const common = { 'x-content-type-options': 'nosniff', 'cache-control': FILE_CACHE };
  if (name === 'init.js') {
    return {
      statusCode: 200,
      headers: { ...common, 'content-type': 'application/javascript; charset=utf-8' },
      body: docsInitScript(),
    };
  }
  const file = rendererFile(name);
  // The route's schema lists the names; a name without a file is the package's own fault.
  if (!file) throw new Error(`The reference has no file ${name}`);
  if (!takesGzip(headers['accept-encoding'])) {
    throw new NotAcceptableError(
      'The reference’s files are served gzip-encoded only: send Accept-Encoding: gzip, or none (every browser does).',
    );
  }
  return {
    statusCode: 200,
    headers: {
      ...common,
      'content-type': file.contentType,
      'content-encoding': 'gzip',
      vary: 'accept-encoding',
    },
    body: file.gzipped.toString('base64'),
    isBase64Encoded: true,
  };
}
