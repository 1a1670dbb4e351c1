/**
 * The local plugin's envelopes for what serverless offline answers by itself: its mock Lambda
 * errors, and what Node's HTTP parser refuses before hapi sees a request.
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installParserRefusals,
  lambdaFailureOf,
} from '../../../../sls/plugins/offline-envelope.ts';

const require = createRequire(import.meta.url);
/** hapi, as serverless offline loads it. */
const Hapi: typeof import('@hapi/hapi') = require('@hapi/hapi');

/** What serverless offline wraps in a 200 when an invocation fails (HttpServer.js). */
const mockLambdaError = (errorType: string) =>
  JSON.stringify({
    errorMessage: '[504] - Lambda timeout.',
    errorType,
    stackTrace: ['LambdaTimeoutError: [504] - Lambda timeout.', '    at LambdaFunction.js:290'],
  });

describe("serverless offline's mock Lambda errors", () => {
  it('become 504/510 for a timeout and 500/900 for any other failure', () => {
    expect(lambdaFailureOf({ source: mockLambdaError('LambdaTimeoutError') })).toMatchObject({
      status: 504,
      code: '510',
    });
    expect(lambdaFailureOf({ source: mockLambdaError('TypeError') })).toMatchObject({
      status: 500,
      code: '900',
    });
  });

  it("leave the functions' own answers alone", () => {
    expect(lambdaFailureOf({ source: '{"error":{"errorCode":"510","message":"x"}}' })).toBe(
      undefined,
    );
    expect(lambdaFailureOf({ source: '{"stackTrace":"text, not a Lambda error"}' })).toBe(
      undefined,
    );
    expect(lambdaFailureOf({ source: Buffer.from('binary') })).toBe(undefined);
  });
});

/*
 * What Node's HTTP parser refuses before hapi sees a request (a bad method token, headers over
 * 16 KB) is answered with the envelope on the raw socket: a real hapi server, as serverless
 * offline runs one, with the local plugin's listener installed, and requests written by hand.
 */
/** Writes raw bytes, returns everything the server sends back until it closes. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(request);
  });
}

function parse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe("the local server's own refusals", () => {
  let server: InstanceType<typeof Hapi.Server>;

  beforeAll(async () => {
    server = new Hapi.Server({ host: '127.0.0.1', port: 0 });
    server.route({ method: 'GET', path: '/health', handler: () => ({ status: 'ok' }) });
    installParserRefusals(server.listener);
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(['get', 'FOO', 'G ET'])(
    'answers the method token %j with 400/100 in the envelope',
    async (method) => {
      const { status, headers, body } = parse(
        await exchange(Number(server.info.port), `${method} /health HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      expect(status).toBe(400);
      expect(headers['content-type']).toBe('application/json');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
      expect(JSON.parse(body)).toEqual({
        error: {
          errorCode: '100',
          message: 'Bad Request Exception',
          details: [{ path: 'request', issue: 'malformed request line or headers' }],
        },
      });
    },
  );

  it('answers headers over 16 KB with 431/100 in the envelope, stating the limit', async () => {
    const { status, body } = parse(
      await exchange(
        Number(server.info.port),
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );
    expect(status).toBe(431);
    const { error } = JSON.parse(body);
    expect(error).toMatchObject({ errorCode: '100', message: 'Request Header Fields Too Large' });
    expect(error.details).toMatch(/^The request headers are too large: .* at most 16 KB here/);
  });

  it('says it was the URL when a 20 KB query string is too long', async () => {
    const { status, body } = parse(
      await exchange(
        Number(server.info.port),
        `GET /health?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ),
    );
    expect(status).toBe(431);
    expect(JSON.parse(body).error.details).toMatch(
      /^The URL \(with its query string\) is too long: .* at most 16 KB here \(10 KB deployed/,
    );
  });

  it('leaves well-formed requests to hapi', async () => {
    const { status, body } = parse(
      await exchange(
        Number(server.info.port),
        'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ),
    );
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
  });
});
