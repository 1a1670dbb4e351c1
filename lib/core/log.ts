/**
 * Structured JSON log lines, one object per line (CloudWatch Logs Insights reads them).
 * Callers pass explicit fields: never headers, bodies, secrets or stack traces.
 */
import type { MetricDocument } from './metrics.ts';

/** A line's fields: plain values, or a list of names (a request's targets: `jobIds`). */
export type LogFields = Record<
  string,
  string | number | boolean | undefined | null | readonly string[]
>;

/**
 * `metrics`: an EMF document (metrics.ts) whose members join the line, so that one line carries
 * both; its members come last.
 */
type LineWriter = (message: string, fields?: LogFields, metrics?: MetricDocument) => void;

export interface Logger {
  debug: LineWriter;
  info: LineWriter;
  warn: LineWriter;
  error: LineWriter;
  child(fields: LogFields): Logger;
}

type LogSink = (line: string) => void;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/**
 * Lines below `level` are not written (LOG_LEVEL, read by config.ts); the metrics a line carried
 * still are, on their own. A child is one object (its fields merged once, its methods shared),
 * since each request makes one or two.
 */
class JsonLogger implements Logger {
  private readonly base: LogFields;
  private readonly sink: LogSink;
  private readonly level: LogLevel;

  constructor(base: LogFields, sink: LogSink, level: LogLevel) {
    this.base = base;
    this.sink = sink;
    this.level = level;
  }

  debug(message: string, fields?: LogFields, metrics?: MetricDocument): void {
    this.write('debug', message, fields, metrics);
  }

  info(message: string, fields?: LogFields, metrics?: MetricDocument): void {
    this.write('info', message, fields, metrics);
  }

  warn(message: string, fields?: LogFields, metrics?: MetricDocument): void {
    this.write('warn', message, fields, metrics);
  }

  error(message: string, fields?: LogFields, metrics?: MetricDocument): void {
    this.write('error', message, fields, metrics);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger({ ...this.base, ...fields }, this.sink, this.level);
  }

  private write(
    lineLevel: LogLevel,
    message: string,
    fields: LogFields | undefined,
    metrics: MetricDocument | undefined,
  ): void {
    if (RANK[lineLevel] < RANK[this.level]) {
      if (metrics) this.sink(JSON.stringify(metrics));
      return;
    }
    // No timestamp of our own: Lambda stamps every line it ships to CloudWatch Logs.
    this.sink(JSON.stringify({ level: lineLevel, message, ...this.base, ...fields, ...metrics }));
  }
}

export function createLogger(
  base: LogFields = {},
  sink: LogSink = defaultSink,
  level: LogLevel = 'info',
): Logger {
  return new JsonLogger(base, sink, level);
}

/**
 * Writes an invocation's closing line with its metrics (lib/core/metrics.ts) riding on it;
 * documents that cannot share the line go out on lines of their own from the same logger, so
 * that every metric document carries its invocation's fields (its request id) and belongs to it
 * alone.
 */
export function logWithMetrics(
  log: Logger,
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: LogFields,
  documents: readonly MetricDocument[],
): void {
  const [first, ...more] = documents;
  log[level](message, fields, first);
  for (const document of more) log.info('metrics', undefined, document);
}

/** console.log: Lambda ships it to CloudWatch Logs, and test runners can capture it. */
function defaultSink(line: string): void {
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
