import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { readBody } from './core/body.ts';
import { type ControlRoute, handleControlRequest, isControlPath } from './core/control-api.ts';
import type {
  CutFault,
  DripFault,
  FaultPlan,
  FaultRegistry,
  OversizeFault,
  StatusFault,
} from './core/faults.ts';
import type { RequestListener } from './core/http-server.ts';
import { type RecordedRequest, recordRequest } from './core/request-log.ts';
import type { Router } from './core/router.ts';
import type { GatewayResponse, RequestHeaders } from './core/types.ts';
import type { GatewayDispatcher } from './gateway/dispatch.ts';
import { gatewayErrorResponse, JSON_CONTENT_TYPE } from './gateway/envelope.ts';
import { arbitraryGatewayError, gatewayError } from './gateway/error-table.ts';
import { MAX_BODY_BYTES } from './gateway/limits.ts';
import type { RateLimiter } from './gateway/rate-limit.ts';
import type { VendorHeaders } from './gateway/vendor-headers.ts';

export interface RequestHandlerDependencies {
  readonly controlRouter: Router<ControlRoute>;
  readonly dispatch: GatewayDispatcher;
  readonly faults: FaultRegistry;
  readonly requests: RecordedRequest[];
  readonly headers: VendorHeaders;
  readonly now: () => number;
  /**
   * The signal that ends requests held by a latency fault: aborted by a reset and by close, so
   * that a request received before a reset never acts after it.
   */
  readonly held: () => AbortSignal;
  readonly log: (line: string) => void;
  readonly onUnexpectedError: (error: unknown) => void;
  /** Added to every API request before it is answered: the round trip of a real gateway. */
  readonly latencyMs?: number;
  /** The gateway's throttle; absent: no limit. */
  readonly rateLimiter?: RateLimiter;
  /** Told of every API request received (the log keeps only the latest ones). */
  readonly onReceived?: () => void;
}

const BODY_TOO_LARGE = 'Request body is larger than 10 MB.';

function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const queryStart = target.indexOf('?');
  if (queryStart < 0) return { path: target, query: new URLSearchParams() };
  return {
    path: target.slice(0, queryStart),
    query: new URLSearchParams(target.slice(queryStart + 1)),
  };
}

function normaliseHeaders(headers: IncomingHttpHeaders): RequestHeaders {
  const normalised: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) normalised[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return normalised;
}

function statusFaultResponse(fault: StatusFault, requestHeaders: RequestHeaders): GatewayResponse {
  const origin = fault.origin ?? 'APIGW';
  if (fault.body !== undefined) {
    const contentType = fault.contentType ?? JSON_CONTENT_TYPE;
    return {
      status: fault.status,
      headers: { 'content-type': contentType },
      body: fault.body,
      origin,
    };
  }
  const error = arbitraryGatewayError(fault.status, fault.errorCode);
  return { ...gatewayErrorResponse(error, requestHeaders), origin };
}

function headersOf(
  response: GatewayResponse,
  originHeader: string,
  gatewayNow: number,
): Record<string, string | number> {
  return {
    ...response.headers,
    'content-length': Buffer.byteLength(response.body ?? ''),
    [originHeader]: response.origin,
    // The gateway's own clock, skew faults included: clients measure their drift from it.
    date: new Date(gatewayNow).toUTCString(),
  };
}

function writeGatewayResponse(
  res: ServerResponse,
  response: GatewayResponse,
  originHeader: string,
  gatewayNow: number,
  delivery?: DripFault | CutFault,
): void | Promise<void> {
  const headers = headersOf(response, originHeader, gatewayNow);
  const body = Buffer.from(response.body ?? '');
  if (delivery?.kind === 'cut') {
    res.writeHead(response.status, headers);
    res.write(body.subarray(0, Math.floor(body.length / 2)));
    // Flushed, then the connection breaks before the body is complete.
    setImmediate(() => res.destroy());
    return;
  }
  if (delivery?.kind === 'drip') return drip(res, response.status, headers, body, delivery);
  res.writeHead(response.status, headers).end(body);
}

/** Writes the answer one byte at a time, raw, until it is done or the client has gone. */
async function drip(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer,
  fault: DripFault,
): Promise<void> {
  const socket = res.socket;
  if (!socket) return;
  const head = Buffer.from(
    `HTTP/1.1 ${status} ${STATUS_TEXT}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n')}\r\nconnection: close\r\n\r\n`,
  );
  // Raw bytes on the socket: the response object must not write anything of its own.
  res.detachSocket(socket);
  const slow = fault.part === 'headers' ? head : body;
  if (fault.part === 'body') socket.write(head);
  for (let i = 0; i < slow.length && !socket.destroyed; i++) {
    socket.write(slow.subarray(i, i + 1));
    await delay(fault.intervalMs);
  }
  if (fault.part === 'headers' && !socket.destroyed) socket.write(body);
  socket.end();
}

/** Any reason phrase will do for the clients; the emulator's own answers use the status only. */
const STATUS_TEXT = 'Emulated';

/** Streams `bytes` bytes (after `head`), as an endpoint with a huge answer would. */
function writeOversize(res: ServerResponse, fault: OversizeFault, originHeader: string): void {
  res.writeHead(fault.status ?? 200, {
    'content-type': fault.contentType ?? 'application/octet-stream',
    [originHeader]: fault.origin ?? 'ENDPOINT',
  });
  res.on('error', () => {});
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let written = 0;
  if (fault.head) {
    res.write(fault.head);
    written += Buffer.byteLength(fault.head);
  }
  const pump = (): void => {
    while (written < fault.bytes && !res.destroyed) {
      const part = chunk.subarray(0, Math.min(chunk.length, fault.bytes - written));
      written += part.length;
      if (!res.write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** The request line and headers, known before the body is read. */
interface RequestHead {
  readonly method: string;
  readonly target: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: RequestHeaders;
}

function headOf(req: IncomingMessage): RequestHead {
  const target = req.url ?? '/';
  return {
    method: req.method ?? 'GET',
    target,
    ...splitTarget(target),
    headers: normaliseHeaders(req.headers),
  };
}

/** Reads the body within the gateway limit and records the request; undefined if aborted. */
async function receive(
  deps: RequestHandlerDependencies,
  req: IncomingMessage,
  head: RequestHead,
): Promise<Buffer | 'too-large' | undefined> {
  const arrivedAt = deps.now();
  deps.onReceived?.();
  const read = await readBody(req, MAX_BODY_BYTES);
  if (read.kind === 'aborted') return undefined;
  const body = read.kind === 'complete' ? read.body : undefined;
  const bodyLength = body?.length ?? (read.kind === 'too-large' ? read.bytesSeen : 0);
  const entry = {
    method: head.method,
    url: head.target,
    headers: head.headers,
    bodyLength,
    time: arrivedAt,
  };
  recordRequest(deps.requests, entry, body);
  return body ?? 'too-large';
}

/** What the gateway answers once faults have had their say (a reset fault is handled before). */
function answer(
  deps: RequestHandlerDependencies,
  head: RequestHead,
  body: Buffer | 'too-large',
  plan: FaultPlan,
): GatewayResponse | Promise<GatewayResponse> {
  if (plan.outcome?.kind === 'status') return statusFaultResponse(plan.outcome, head.headers);
  if (body === 'too-large') {
    return gatewayErrorResponse(gatewayError('430', BODY_TOO_LARGE), head.headers);
  }
  return deps.dispatch({ ...head, body, gatewayNow: deps.now() + plan.skewMs });
}

/** Record, faults, the 10 MB limit, then the gateway's routing and authentication. */
async function handleGatewayRequest(
  deps: RequestHandlerDependencies,
  req: IncomingMessage,
  res: ServerResponse,
  head: RequestHead,
  held: AbortSignal,
): Promise<void> {
  const body = await receive(deps, req, head);
  if (body === undefined) return;
  if (held.aborted) {
    req.socket.destroy();
    return;
  }

  const plan = deps.faults.take(head.method, head.path);
  // Decided on arrival, as a gateway counts requests when they come in.
  const throttled = !plan.outcome && deps.rateLimiter?.take() === false;
  const latencyMs = plan.latencyMs + (deps.latencyMs ?? 0);
  if (latencyMs > 0) await delay(latencyMs, undefined, { signal: held });
  if (throttled) {
    writeGatewayResponse(
      res,
      gatewayErrorResponse(gatewayError('410'), head.headers),
      deps.headers.responseOrigin,
      deps.now() + plan.skewMs,
    );
    deps.log(`${head.method} ${head.target} -> 429 (throttled)`);
    return;
  }
  if (plan.outcome?.kind === 'reset') {
    deps.log(`${head.method} ${head.target} -> connection reset (fault)`);
    req.socket.destroy();
    return;
  }

  if (plan.outcome?.kind === 'oversize') {
    writeOversize(res, plan.outcome, deps.headers.responseOrigin);
    deps.log(`${head.method} ${head.target} -> ${plan.outcome.bytes} bytes (fault)`);
    return;
  }
  const response = await answer(deps, head, body, plan);
  await writeGatewayResponse(
    res,
    response,
    deps.headers.responseOrigin,
    deps.now() + plan.skewMs,
    plan.delivery,
  );
  deps.log(`${head.method} ${head.target} -> ${response.status}`);
}

async function handle(
  deps: RequestHandlerDependencies,
  req: IncomingMessage,
  res: ServerResponse,
  held: AbortSignal,
): Promise<void> {
  const head = headOf(req);
  if (isControlPath(head.path)) {
    return handleControlRequest(deps.controlRouter, req, res, head.path, head.query);
  }
  return handleGatewayRequest(deps, req, res, head, held);
}

export function createRequestHandler(deps: RequestHandlerDependencies): RequestListener {
  return (req, res) => {
    const held = deps.held();
    handle(deps, req, res, held).catch((error: unknown) => {
      // A reset or close cuts injected latency short: just drop the connection.
      if (!held.aborted) deps.onUnexpectedError(error);
      if (res.headersSent || held.aborted) {
        res.destroy();
        return;
      }
      writeGatewayResponse(
        res,
        gatewayErrorResponse(gatewayError('900'), {}),
        deps.headers.responseOrigin,
        deps.now(),
      );
    });
  };
}
