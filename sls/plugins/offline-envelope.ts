// A local-only serverless plugin (listed after serverless-offline). It makes serverless
// offline's HTTP server (hapi) hand the functions what API Gateway hands them, and answer what
// only it answers in the service's envelope:
// - hapi's own refusals (a malformed % escape, an unparsable Content-Type, a body over its
//   10 MB limit) become the uniform error envelope, JSON or XML as negotiated;
// - a JSON body reaches the function as the caller's text: serverless offline would parse it
//   and hand over `0`, `false` or `"text"` as a number, a boolean or a bare string;
// - a body sent without Content-Type is not labelled JSON: serverless offline adds
//   `application/json`, API Gateway adds nothing. It is labelled with a media type no route
//   accepts, so routes that take JSON or checked bytes refuse it with 400/`100` as they do deployed;
// - what Node's HTTP parser refuses before hapi sees a request (a bad method token such as `get`
//   or `FOO`, a malformed request line, headers over Node's 16 KB) is answered with the envelope
//   too, on the raw socket: 400/`100`, or 431/`100` for oversized headers;
// - a function that failed or timed out in serverless offline (its worker slow to start, on a
//   loaded machine) is answered 200 with a mock Lambda error and stack trace by serverless
//   offline; it becomes 504/`510` (timed out) or 500/`900`, as the service answers elsewhere.
// The envelope comes from the service's own encoder (lib/http/envelope.ts).
import type { Server as HttpServer } from 'node:http';
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { Request } from '@hapi/hapi';
import {
  InputError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceError,
  UnexpectedError,
  UpstreamTimeoutError,
} from '../../lib/core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../lib/core/lambda-limits.ts';
import { encodeError, negotiateErrorFormat } from '../../lib/http/envelope.ts';
import { at, offlineServer, type Plugin, type Serverless } from '../serverless.ts';

/** Node's limit on a request line and its headers together (http.maxHeaderSize). */
const HEADER_LIMIT_BYTES = maxHeaderSize;

/** A refusal hapi made itself (a Boom error): its status and message. */
interface Refusal {
  readonly output: {
    readonly statusCode: number;
    readonly payload?: { readonly message?: string };
  };
}

/** What Node's HTTP parser says of a request it refused. */
interface ParserError {
  readonly code?: string;
  readonly rawPacket?: unknown;
}

/** The response under way on a socket: node:http keeps it as `_httpMessage`. */
interface InFlight {
  readonly _httpMessage?: { readonly headersSent: boolean } | null;
}

/** What a body sent without Content-Type is labelled locally. */
const UNSPECIFIED_TYPE = 'application/x-unspecified';
/** serverless offline parses these itself (HttpServer.js) unless the mime says otherwise. */
const PARSED_TYPES = new Set(['application/json', 'application/vnd.api+json']);

/** A refusal hapi made itself, in the service's error table. */
function serviceErrorOf(request: Request, boom: Refusal): ServiceError {
  const status = boom.output.statusCode;
  const message = boom.output.payload?.message ?? '';
  if (status === 413) {
    // Over hapi's 10 MB, so over the documented limit too: the answer states that one (6 MB).
    return new PayloadTooLargeError(LAMBDA_PAYLOAD_LIMIT_BYTES);
  }
  if (status === 404) return new NotFoundError('URL not found.');
  if (status === 400 || status === 415) {
    const where = /content-type/i.test(message)
      ? { path: 'headers.content-type', issue: 'expected a valid media type' }
      : hasMalformedEscape(request.url?.pathname ?? request.path ?? '')
        ? { path: 'path', issue: 'malformed percent-encoding' }
        : { path: 'request', issue: message || 'malformed request' };
    return new InputError([where]);
  }
  return new UnexpectedError();
}

/**
 * serverless offline's stand-in for a failed Lambda invocation (HttpServer.js wraps it in a 200):
 * `{ errorMessage, errorType, stackTrace }`. The functions never answer that shape themselves.
 */
export function lambdaFailureOf(response: unknown): ServiceError | undefined {
  const source = at(response, 'source');
  if (typeof source !== 'string' || !source.includes('"stackTrace"')) return undefined;
  try {
    const body: unknown = JSON.parse(source);
    const errorType = at(body, 'errorType');
    if (typeof errorType !== 'string' || !Array.isArray(at(body, 'stackTrace'))) return undefined;
    return errorType === 'LambdaTimeoutError' ? new UpstreamTimeoutError() : new UnexpectedError();
  } catch {
    return undefined;
  }
}

function hasMalformedEscape(rawPath: string): boolean {
  try {
    decodeURIComponent(rawPath);
    return false;
  } catch {
    return true;
  }
}

function headerOf(request: Request, name: string): string | undefined {
  const value = request.headers?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What made a request too large for Node's parser: its request line (the URL with its query
 * string) when the line alone is over half the limit, else its headers.
 */
function overflowOf(rawPacket: unknown): 'url' | 'headers' {
  if (!Buffer.isBuffer(rawPacket)) return 'headers';
  const end = rawPacket.indexOf('\r\n');
  const line = end === -1 ? rawPacket.length : end;
  return line > HEADER_LIMIT_BYTES / 2 ? 'url' : 'headers';
}

/** The envelope of a request Node's HTTP parser refused: JSON (its headers were not read). */
export function parserRefusal(error: ParserError | undefined): ServiceError {
  if (error?.code === 'HPE_HEADER_OVERFLOW') {
    const limit = `${Math.round(HEADER_LIMIT_BYTES / 1024)} KB`;
    return new ServiceError({
      status: 431,
      code: '100',
      message: 'Request Header Fields Too Large',
      details:
        overflowOf(error.rawPacket) === 'url'
          ? `The URL (with its query string) is too long: the request line and headers together may be at most ${limit} here (10 KB deployed, API Gateway's limit). Send long input in a body.`
          : `The request headers are too large: the request line and headers together may be at most ${limit} here (10 KB deployed, API Gateway's limit).`,
      reason: 'headers-too-large',
    });
  }
  if (error?.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ServiceError({ status: 408, code: '100', message: 'Request Timeout' });
  }
  return new InputError([{ path: 'request', issue: 'malformed request line or headers' }]);
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** A whole HTTP/1.1 response carrying the envelope; the connection closes after it. */
function rawEnvelope(error: ServiceError): Buffer {
  const encoded = encodeError(error, 'json');
  const body = Buffer.from(encoded.body, 'utf8');
  const head = [
    `HTTP/1.1 ${encoded.statusCode} ${REASONS[encoded.statusCode] ?? 'Bad Request'}`,
    ...Object.entries(encoded.headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/**
 * Node's HTTP server answers what its parser refuses with a bare 400 (hapi's listener writes one
 * too): the listeners are replaced by one that writes the envelope. A request already under way
 * on the socket (pipelined) is left to hapi, whose answer goes through onPreResponse.
 */
export function installParserRefusals(listener: HttpServer): void {
  const previous = listener.listeners('clientError');
  listener.removeAllListeners('clientError');
  listener.on('clientError', (error: Error & ParserError, socket: Socket & InFlight) => {
    const inFlight = socket._httpMessage;
    if (inFlight && !inFlight.headersSent) {
      for (const handler of previous) handler.call(listener, error, socket);
      return;
    }
    if (error?.code === 'ECONNRESET' || !socket.writable || inFlight) {
      socket.destroy();
      return;
    }
    socket.end(rawEnvelope(parserRefusal(error)));
  });
}

export default class OfflineEnvelope implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:offline:start:init': () => this.install() };
  }

  install(): void {
    const server = offlineServer(this.serverless);
    if (!server) return;
    installParserRefusals(server.listener);

    server.ext('onPreHandler', (request, h) => {
      // serverless offline reads no body itself (`parse: false`): bytes, or none.
      const payload = request.payload;
      const hasBody = Buffer.isBuffer(payload) && payload.length > 0;
      if (!hasBody) return h.continue;
      if (headerOf(request, 'content-type') === undefined) {
        // The event's headers are read from the raw header list.
        request.raw.req.rawHeaders.push('content-type', UNSPECIFIED_TYPE);
        // hapi's types say mime is read-only; serverless offline reads it after this step.
        Object.assign(request, { mime: UNSPECIFIED_TYPE });
      } else if (PARSED_TYPES.has(request.mime)) {
        // Any other media type keeps the body as the caller's text.
        Object.assign(request, { mime: 'text/plain' });
      }
      return h.continue;
    });

    server.ext('onPreResponse', (request, h) => {
      const response = request.response;
      // Only hapi's own refusals are Boom errors; the functions' answers never are.
      const error =
        'isBoom' in response && response.isBoom
          ? serviceErrorOf(request, response)
          : lambdaFailureOf(response);
      if (!error) return h.continue;
      const headers = {
        accept: headerOf(request, 'accept'),
        'content-type': headerOf(request, 'content-type'),
      };
      const encoded = encodeError(error, negotiateErrorFormat(headers));
      const reply = h.response(encoded.body).code(encoded.statusCode);
      for (const [name, value] of Object.entries(encoded.headers)) reply.header(name, value);
      return reply;
    });
  }
}
