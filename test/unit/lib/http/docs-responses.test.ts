/**
 * The answers of GET /docs and GET /docs/{asset} (lib/http/docs-responses.ts): the page with its
 * policy and headers, its start-up script, and Swagger UI's files gzipped, to a client that takes
 * gzip or says nothing of it, 406 to one that refuses it, each within what a Lambda function may
 * return.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { NotAcceptableError } from '../../../../lib/core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../../../lib/core/lambda-limits.ts';
import { RENDERER_FILES } from '../../../../lib/http/docs-assets.ts';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  type DocsAssetName,
  docsInitScript,
  docsPageHtml,
} from '../../../../lib/http/docs-page.ts';
import { docsAsset, docsPage } from '../../../../lib/http/docs-responses.ts';
import type { HttpResponse } from '../../../../lib/http/responses.ts';

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const RENDERER = Object.keys(RENDERER_FILES) as DocsAssetName[];

/** The body's bytes as the browser receives them (API Gateway decodes a base64 body). */
const bytesOf = (response: HttpResponse) =>
  response.isBase64Encoded
    ? Buffer.from(response.body ?? '', 'base64')
    : Buffer.from(response.body ?? '', 'utf8');

/** The size Lambda counts of a response: its JSON. */
const payloadBytes = (response: HttpResponse) => Buffer.byteLength(JSON.stringify(response));

describe('GET /docs', () => {
  const page = docsPage();

  it('answers the page as HTML, under its own Content-Security-Policy', () => {
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(docsPageHtml());
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
  });

  it('sends no referrer on, and is checked again on each visit', () => {
    expect(page.headers).toMatchObject({
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
  });
});

describe('GET /docs/{asset}', () => {
  it("answers the page's start-up script as JavaScript text", () => {
    const script = docsAsset('init.js', { 'accept-encoding': 'gzip' });
    expect(script.statusCode).toBe(200);
    expect(script.isBase64Encoded).toBeFalsy();
    expect(script.body).toBe(docsInitScript());
    expect(script.headers).toMatchObject({
      'content-type': 'application/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=3600',
    });
  });

  it.each(RENDERER)(
    'answers %s gzipped to a browser that takes gzip, and to a client that says nothing of it',
    (name) => {
      for (const acceptEncoding of [
        'gzip, deflate, br, zstd',
        'GZIP',
        'br;q=1.0, gzip;q=0.8',
        undefined,
      ]) {
        const file = docsAsset(name, { 'accept-encoding': acceptEncoding });
        expect(file.statusCode).toBe(200);
        expect(file.isBase64Encoded).toBe(true);
        expect(file.headers).toMatchObject({
          'content-type': RENDERER_FILES[name],
          'content-encoding': 'gzip',
          vary: 'accept-encoding',
          'cache-control': 'public, max-age=3600',
          'x-content-type-options': 'nosniff',
        });
        expect(gunzipSync(bytesOf(file)).equals(readFileSync(path.join(DIST, name)))).toBe(true);
      }
    },
  );

  it.each(RENDERER)(
    'refuses %s with 406 to a client that takes no gzip: a flood of the 1.5 MB as it is would cost what the reference is not worth',
    (name) => {
      for (const acceptEncoding of ['identity', 'br']) {
        const refusal = (() => {
          try {
            docsAsset(name, { 'accept-encoding': acceptEncoding });
          } catch (error) {
            return error;
          }
        })();
        expect(refusal).toBeInstanceOf(NotAcceptableError);
        expect(refusal).toMatchObject({ status: 406, code: '100' });
      }
    },
  );

  it('takes a gzip the client refuses (q=0), or names only in passing, as no gzip', () => {
    const name = 'swagger-ui.css';
    for (const acceptEncoding of ['gzip;q=0', 'br, gzip; q=0.000', 'x-gzip-like', '*;q=0']) {
      expect(() => docsAsset(name, { 'accept-encoding': acceptEncoding }), acceptEncoding).toThrow(
        NotAcceptableError,
      );
    }
    // Any coding it does not name otherwise: gzip too (RFC 9110, 12.5.3).
    for (const acceptEncoding of ['*', 'br, *;q=0.5', 'x-gzip']) {
      const file = docsAsset(name, { 'accept-encoding': acceptEncoding });
      expect(file.headers?.['content-encoding'], acceptEncoding).toBe('gzip');
    }
    expect(() => docsAsset(name, { 'accept-encoding': 'gzip;q=0, *' })).toThrow(NotAcceptableError);
  });

  it('answers every file within what a Lambda function may return', () => {
    for (const name of [...RENDERER, 'init.js' as const]) {
      for (const headers of [{ 'accept-encoding': 'gzip' }, {}]) {
        expect(payloadBytes(docsAsset(name, headers)), name).toBeLessThan(
          LAMBDA_PAYLOAD_LIMIT_BYTES,
        );
      }
    }
  });

  it("fails loudly on a name the route's schema lets through without a file (the package's fault)", () => {
    expect(() => docsAsset('missing.js' as DocsAssetName, {})).toThrow(
      'The reference has no file missing.js',
    );
  });
});
