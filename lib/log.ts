/**
 * Structured JSON log lines, one object per line (CloudWatch Logs Insights reads them).
 * Callers pass explicit fields: never headers, bodies, secrets or stack traces.
 */
export type LogFields = Record<string, string | number | boolean | undefined | null>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type LogSink = (line: string) => void;

export function createLogger(base: LogFields = {}, sink: LogSink = defaultSink): Logger {
  const write = (level: string, message: string, fields?: LogFields) =>
    // No timestamp of our own: Lambda stamps every line it ships to CloudWatch Logs.
    sink(JSON.stringify({ level, message, ...base, ...fields }));
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (fields) => createLogger({ ...base, ...fields }, sink),
  };
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
