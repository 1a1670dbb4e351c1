import type { RequestHeaders } from './types.ts';

/** One request as it reached the emulator, before faults or gateway rules were applied. */
export interface RecordedRequest {
  readonly method: string;
  /** The request target exactly as received (path and query). */
  readonly url: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  readonly headers: RequestHeaders;
  /** Bytes of body received (the declared length when a too-large body was not read). */
  readonly bodyLength: number;
  /** The body as UTF-8 text, kept only for bodies up to RECORDED_BODY_MAX_BYTES. */
  readonly body?: string;
  /** Arrival time in ms on the emulator's (unskewed) clock. */
  readonly time: number;
}

/** A long-running emulator (npm start, benchmarks) must not grow without bound. */
const MAX_RECORDED_REQUESTS = 2000;
const RECORDED_BODY_MAX_BYTES = 64 * 1024;

/** Appends to `log` in place (the array is shared with callers) and drops the oldest entries. */
export function recordRequest(
  log: RecordedRequest[],
  entry: Omit<RecordedRequest, 'body'>,
  body: Buffer | undefined,
): void {
  const keepBody = body !== undefined && body.length <= RECORDED_BODY_MAX_BYTES;
  log.push(keepBody ? { ...entry, body: body.toString('utf8') } : entry);
  if (log.length > MAX_RECORDED_REQUESTS) log.splice(0, log.length - MAX_RECORDED_REQUESTS);
}
