import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './body.ts';
import { type Fault, type FaultController, FaultValidationError, parseFault } from './faults.ts';
import type { RecordedRequest } from './request-log.ts';
import type { RouteDefinition, Router } from './router.ts';

/**
 * Test-control endpoints under /__emulator: no authentication, never recorded, never faulted.
 * They speak plain JSON, not the gateway's envelopes.
 */
export const CONTROL_PREFIX = '/__emulator';

const CONTROL_BODY_LIMIT_BYTES = 1024 * 1024;

interface ControlContext {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body; undefined when the body is empty. */
  readonly body: unknown;
}

interface ControlResult {
  readonly status: number;
  readonly body?: unknown;
}

export interface ControlRoute extends RouteDefinition {
  handle(context: ControlContext): ControlResult;
}

/** A refusal of a control request, answered as {"error":"<message>"} with its status. */
export class ControlError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = 'ControlError';
  }
}

export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

export interface CoreControlDependencies {
  readonly faults: FaultController;
  readonly requests: RecordedRequest[];
  readonly reset: () => void;
}

function addFaults(faults: FaultController, body: unknown): ControlResult {
  const submitted: unknown[] = Array.isArray(body) ? body : [body];
  if (submitted.length === 0) {
    throw new ControlError(400, 'Send a fault or a non-empty array of faults.');
  }
  let checked: Fault[];
  try {
    // Every fault is checked before any is registered, so a half-applied batch never lingers.
    checked = submitted.map(parseFault);
  } catch (error) {
    if (error instanceof FaultValidationError) throw new ControlError(400, error.message);
    throw error;
  }
  return { status: 201, body: { faults: checked.map((fault) => faults.add(fault)) } };
}

/** The routes every emulator has: faults, the request log, reset, health. */
export function coreControlRoutes(deps: CoreControlDependencies): ControlRoute[] {
  return [
    {
      method: 'GET',
      path: `${CONTROL_PREFIX}/health`,
      handle: () => ({ status: 200, body: { status: 'ok' } }),
    },
    {
      method: 'GET',
      path: `${CONTROL_PREFIX}/faults`,
      handle: () => ({ status: 200, body: { faults: deps.faults.list() } }),
    },
    {
      method: 'POST',
      path: `${CONTROL_PREFIX}/faults`,
      handle: ({ body }) => addFaults(deps.faults, body),
    },
    {
      method: 'DELETE',
      path: `${CONTROL_PREFIX}/faults`,
      handle: () => {
        deps.faults.clear();
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: `${CONTROL_PREFIX}/requests`,
      handle: () => ({ status: 200, body: { requests: deps.requests } }),
    },
    {
      method: 'DELETE',
      path: `${CONTROL_PREFIX}/requests`,
      handle: () => {
        deps.requests.length = 0;
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: `${CONTROL_PREFIX}/reset`,
      handle: () => {
        deps.reset();
        return { status: 204 };
      },
    },
  ];
}

function writeJson(res: ServerResponse, result: ControlResult): void {
  if (result.body === undefined) {
    res.writeHead(result.status).end();
    return;
  }
  const text = JSON.stringify(result.body);
  res
    .writeHead(result.status, {
      'content-type': 'application/json;charset=UTF-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ControlError(400, 'The body is not valid JSON.');
  }
}

async function runControlRoute(
  router: Router<ControlRoute>,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
): Promise<ControlResult> {
  const match = router.match(req.method ?? 'GET', path);
  if (match.kind === 'not-found') throw new ControlError(404, `No control endpoint ${path}`);
  if (match.kind === 'method-not-allowed') {
    throw new ControlError(405, `${path} allows ${match.allowed.join(', ')}`);
  }
  const read = await readBody(req, CONTROL_BODY_LIMIT_BYTES);
  if (read.kind === 'too-large') throw new ControlError(413, 'Control bodies are limited to 1 MB.');
  const body = read.kind === 'complete' ? parseJsonBody(read.body) : undefined;
  return match.route.handle({ params: match.params, query, body });
}

export async function handleControlRequest(
  router: Router<ControlRoute>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  try {
    writeJson(res, await runControlRoute(router, req, path, query));
  } catch (error) {
    if (!(error instanceof ControlError)) throw error;
    writeJson(res, { status: error.status, body: { error: error.message } });
  }
}
