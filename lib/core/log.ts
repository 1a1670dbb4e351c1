/**
 * Structured JSON log lines, one object per line (CloudWatch Logs Insights reads them).
 * Callers pass explicit fields: never headers, bodies, secrets or stack traces.
 */
import type { MetricDocument } from './metrics.js';

export type LogFields = Record<string, string | number | boolean | undefined | null>;

/**
 * `metrics`: an EMF document (metrics.ts) whose members join the line, so that one line carries
 * both; its members come last.
 */
type LineWriter = (message: string, fields?: LogFields, metrics?: MetricDocument) => void;

export interface Logger {
  info: LineWriter;
  warn: LineWriter;
  error: LineWriter;
  child(fields: LogFields): Logger;
}

type LogSink = (line: string) => void;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Below the level, a line is not written; the metrics it carried still are, on their own. */
const metricsOnly =
  (sink: LogSink): LineWriter =>
  (_message, _fields, metrics) => {
    if (metrics) sink(JSON.stringify(metrics));
  };

/** Lines below `level` are not written (LOG_LEVEL, read by config.ts). */
export function createLogger(
  base: LogFields = {},
  sink: LogSink = defaultSink,
  level: LogLevel = 'info',
): Logger {
  const writer = (lineLevel: LogLevel) =>
    RANK[lineLevel] < RANK[level]
      ? metricsOnly(sink)
      : (message: string, fields?: LogFields, metrics?: MetricDocument) =>
          // No timestamp of our own: Lambda stamps every line it ships to CloudWatch Logs.
          sink(JSON.stringify({ level: lineLevel, message, ...base, ...fields, ...metrics }));
  return {
    info: writer('info'),
    warn: writer('warn'),
    error: writer('error'),
    child: (fields) => createLogger({ ...base, ...fields }, sink, level),
  };
}

/** console.log: Lambda ships it to CloudWatch Logs, and test runners can capture it. */
export function defaultSink(line: string): void {
  console.log(line);
}

/** What may be logged of an error: its name, code and message; never its stack. */
export function describeError(error: unknown): LogFields {
  if (!(error instanceof Error)) return { errorType: typeof error };
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? error.cause : undefined;
  return {
    errorName: error.name,
    errorMessage: error.message,
    errorCode: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
    causeName: cause?.name,
    causeMessage: cause?.message,
    causeCode: cause ? String((cause as { code?: unknown }).code ?? '') || undefined : undefined,
  };
}
