import { z } from 'zod';

/** Which requests a fault applies to; an absent field matches every request. */
interface FaultMatch {
  /** Compared case-insensitively. */
  method?: string;
  /** Compared with the start of the path (query excluded). */
  pathPrefix?: string;
}

interface FaultCommon {
  match?: FaultMatch;
  /** How many matching requests it applies to: default 1; 0 or Infinity = until cleared. */
  times?: number;
}

/** Delays the request, then lets it continue (or meet a later fault). */
interface LatencyFault extends FaultCommon {
  kind: 'latency';
  ms: number;
}

/** Destroys the connection without answering. */
interface ResetFault extends FaultCommon {
  kind: 'reset';
}

/** Answers with this status instead of handling the request. */
export interface StatusFault extends FaultCommon {
  kind: 'status';
  status: number;
  /** Default: the gateway table's code for the status (429 -> "400"), else the status. */
  errorCode?: string;
  /** A raw body to send instead of the gateway envelope. */
  body?: string;
  /** Content-Type of `body`; default application/json;charset=UTF-8. */
  contentType?: string;
  /** Who the answer claims to come from; default APIGW. */
  origin?: 'APIGW' | 'ENDPOINT';
}

/** Puts the gateway clock off by `ms`, so correctly timed signatures look skewed. */
interface SkewFault extends FaultCommon {
  kind: 'skew';
  ms: number;
}

/**
 * The request is handled, then its answer is written one byte every `intervalMs`: the status
 * line and headers (`part: 'headers'`), or the body after whole headers (`part: 'body'`).
 */
export interface DripFault extends FaultCommon {
  kind: 'drip';
  part: 'headers' | 'body';
  intervalMs: number;
}

/** The request is handled; its answer's headers and half its body are sent, then the connection is destroyed. */
export interface CutFault extends FaultCommon {
  kind: 'cut';
}

/** Answers with a body of `bytes` bytes, streamed, instead of handling the request. */
export interface OversizeFault extends FaultCommon {
  kind: 'oversize';
  bytes: number;
  /** Default 200. */
  status?: number;
  /** Default application/octet-stream. */
  contentType?: string;
  /** Written first, e.g. the start of an error envelope; the rest is filler. */
  head?: string;
  /** Who the answer claims to come from; default ENDPOINT. */
  origin?: 'APIGW' | 'ENDPOINT';
}

export type Fault =
  | LatencyFault
  | ResetFault
  | StatusFault
  | SkewFault
  | DripFault
  | CutFault
  | OversizeFault;

export interface RegisteredFault {
  readonly id: number;
  /** Requests it will still apply to; null = until cleared. */
  readonly remaining: number | null;
  readonly fault: Fault;
}

export interface FaultController {
  /** Validates and registers a fault; throws FaultValidationError on a malformed one. */
  add(fault: Fault): RegisteredFault;
  remove(id: number): boolean;
  clear(): void;
  list(): RegisteredFault[];
}

/** What the registered faults do to one request. */
export interface FaultPlan {
  readonly skewMs: number;
  readonly latencyMs: number;
  /** A fault that answers instead of the gateway; the first matching one wins. */
  readonly outcome?: ResetFault | StatusFault | OversizeFault;
  /** A fault on how the real answer is written; the first matching one wins. */
  readonly delivery?: DripFault | CutFault;
}

export class FaultValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultValidationError';
  }
}

const MAX_LATENCY_MS = 10 * 60 * 1000;
const MAX_OVERSIZE_BYTES = 512 * 1024 * 1024;

const common = {
  match: z
    .strictObject({
      method: z.string().min(1).optional(),
      pathPrefix: z.string().startsWith('/').optional(),
    })
    .optional(),
  times: z.number().int().min(0).optional(),
};

const faultSchema: z.ZodType<Fault> = z.discriminatedUnion('kind', [
  z.strictObject({
    ...common,
    kind: z.literal('latency'),
    ms: z.number().min(0).max(MAX_LATENCY_MS),
  }),
  z.strictObject({ ...common, kind: z.literal('reset') }),
  z.strictObject({
    ...common,
    kind: z.literal('status'),
    status: z.number().int().min(200).max(599),
    errorCode: z.string().min(1).optional(),
    body: z.string().optional(),
    contentType: z.string().min(1).optional(),
    origin: z.enum(['APIGW', 'ENDPOINT']).optional(),
  }),
  z.strictObject({ ...common, kind: z.literal('skew'), ms: z.number().int() }),
  z.strictObject({
    ...common,
    kind: z.literal('drip'),
    part: z.enum(['headers', 'body']),
    intervalMs: z.number().int().min(1).max(60_000),
  }),
  z.strictObject({ ...common, kind: z.literal('cut') }),
  z.strictObject({
    ...common,
    kind: z.literal('oversize'),
    bytes: z.number().int().min(0).max(MAX_OVERSIZE_BYTES),
    status: z.number().int().min(200).max(599).optional(),
    contentType: z.string().min(1).optional(),
    head: z.string().optional(),
    origin: z.enum(['APIGW', 'ENDPOINT']).optional(),
  }),
]);

/** Checks an untrusted value (e.g. a JSON body) and returns it as a Fault. */
export function parseFault(value: unknown): Fault {
  // Infinity cannot travel in JSON and zod numbers are finite: both spell "until cleared" as 0.
  const normalised =
    typeof value === 'object' && value !== null && (value as FaultCommon).times === Infinity
      ? { ...value, times: 0 }
      : value;
  const parsed = faultSchema.safeParse(normalised);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(fault)'}: ${issue.message}`,
  );
  throw new FaultValidationError(`Invalid fault: ${issues.join('; ')}`);
}

function matches(match: FaultMatch | undefined, method: string, path: string): boolean {
  if (match?.method !== undefined && match.method.toUpperCase() !== method.toUpperCase())
    return false;
  if (match?.pathPrefix !== undefined && !path.startsWith(match.pathPrefix)) return false;
  return true;
}

interface ActiveFault {
  readonly id: number;
  remaining: number | null;
  readonly fault: Fault;
}

export class FaultRegistry implements FaultController {
  readonly #active: ActiveFault[] = [];
  #nextId = 1;

  add(fault: Fault): RegisteredFault {
    const parsed = parseFault(fault);
    const times = parsed.times ?? 1;
    const active: ActiveFault = {
      id: this.#nextId++,
      remaining: times === 0 ? null : times,
      fault: parsed,
    };
    this.#active.push(active);
    return snapshot(active);
  }

  remove(id: number): boolean {
    const index = this.#active.findIndex((active) => active.id === id);
    if (index < 0) return false;
    this.#active.splice(index, 1);
    return true;
  }

  clear(): void {
    this.#active.length = 0;
  }

  list(): RegisteredFault[] {
    return this.#active.map(snapshot);
  }

  /** Works out what happens to one request and uses up one application of each fault applied. */
  take(method: string, path: string): FaultPlan {
    let skewMs = 0;
    let latencyMs = 0;
    let outcome: ResetFault | StatusFault | OversizeFault | undefined;
    let delivery: DripFault | CutFault | undefined;
    for (const active of [...this.#active]) {
      const { fault } = active;
      if (!matches(fault.match, method, path)) continue;
      if (fault.kind === 'skew') skewMs += fault.ms;
      else if (fault.kind === 'latency') latencyMs += fault.ms;
      else if (fault.kind === 'drip' || fault.kind === 'cut') {
        if (delivery) continue;
        delivery = fault;
      } else if (outcome) continue;
      else outcome = fault;
      this.#useOnce(active);
    }
    return { skewMs, latencyMs, outcome, delivery };
  }

  #useOnce(active: ActiveFault): void {
    if (active.remaining === null) return;
    active.remaining -= 1;
    if (active.remaining === 0) this.remove(active.id);
  }
}

function snapshot(active: ActiveFault): RegisteredFault {
  return { id: active.id, remaining: active.remaining, fault: structuredClone(active.fault) };
}
