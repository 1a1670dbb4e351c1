/**
 * Failures that never reach a caller as they are: the settings, the secret, the watcher's
 * state. The log and Lambda see them. A caller sees what `toServiceError` makes of them.
 */

/**
 * An operator's setting (an environment variable) is missing or invalid. Thrown by config.ts at
 * cold start, so the function's init fails naming the variable. A caller never sees it: when one
 * is met during a request, the caller gets a MisconfiguredError (service-error.ts).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The secret could not be read or does not validate (names fields, never values). */
export class SecretError extends Error {
  override readonly name = 'SecretError';
  /**
   * True when trying again cannot help until an operator acts: the document does not validate,
   * or the secret does not exist, or the function may not read it. False for what may pass
   * (a timeout, throttling, Secrets Manager's own failure).
   */
  readonly misconfigured: boolean;
  constructor(message: string, options: { cause?: unknown; misconfigured?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.misconfigured = options.misconfigured ?? false;
  }
}

/** The watcher's local state file is unreadable: refused rather than started afresh. */
export class WatcherStateError extends Error {
  override readonly name = 'WatcherStateError';
}

/**
 * A watcher run that did not finish its work; thrown so that Lambda reports the run as failed.
 * What reaches Lambda's own error log line is its name and message, never a stack.
 */
export class WatchRunError extends Error {
  override readonly name = 'WatchRunError';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * Secrets Manager refused a read, or answered something that is not a secret. `type` is its
 * exception's name (`ResourceNotFoundException`, ...), never anything of the secret.
 */
export class SecretReadError extends Error {
  override readonly name = 'SecretReadError';
  readonly type: string;

  constructor(message: string, type: string) {
    super(message);
    this.type = type;
  }
}

/** The secrets extension could not be reached at all (its layer is missing): the SDK serves. */
export class ExtensionUnreachableError extends Error {
  override readonly name = 'ExtensionUnreachableError';
}
