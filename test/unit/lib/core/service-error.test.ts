/**
 * A ServiceError's shape and cause, the configuration's answer (which names nothing of it), and
 * whatever was thrown as the ServiceError a caller may see (toServiceError).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, SecretError } from '../../../../lib/core/internal-errors.ts';
import { NotFoundError } from '../../../../lib/core/request-errors.ts';
import {
  MisconfiguredError,
  ServiceError,
  toServiceError,
  UnexpectedError,
} from '../../../../lib/core/service-error.ts';
import {
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../../../lib/core/upstream-errors.ts';

/** What a caller sees of an error: its status, errorCode and message. */
const seen = (error: ServiceError) => [error.status, error.code, error.message];

describe('a service error', () => {
  it('keeps the cause it was given, and has none when given none', () => {
    const cause = new Error('connect ECONNREFUSED');
    expect(new UpstreamUnreachableError(cause).cause).toBe(cause);
    expect(new UnexpectedError(cause).cause).toBe(cause);
    expect(new UpstreamTimeoutError()).not.toHaveProperty('cause');
    expect(new ServiceError({ status: 500, code: '900', message: 'm' })).not.toHaveProperty(
      'cause',
    );
  });

  it('tells a caller the configuration is wrong and retrying will not help, naming nothing of it', () => {
    const error = new MisconfiguredError(new SecretError('signing.accessKey: Required'));
    expect(error.details).toMatch(/configuration is invalid.*retrying will not help/s);
    expect(JSON.stringify(error.details)).not.toContain('accessKey');
  });
});

describe('toServiceError', () => {
  it('answers a service error as it is', () => {
    const error = new NotFoundError();
    expect(toServiceError(error)).toBe(error);
  });

  it("answers a setting found missing as the configuration's fault: 500/900 that says so", () => {
    const missing = new ConfigError('Invalid configuration: SCAN_BASE_URL: required when deployed');
    const error = toServiceError(missing);
    expect(error).toBeInstanceOf(MisconfiguredError);
    expect(error.cause).toBe(missing);
  });

  it('answers anything else as unexpected, keeping what was thrown as its cause', () => {
    for (const thrown of [new TypeError('x is undefined'), 'a string', undefined, { code: 1 }]) {
      const error = toServiceError(thrown);
      expect(error).toBeInstanceOf(UnexpectedError);
      expect(seen(error)).toEqual([500, '900', 'Unexpected Error']);
    }
    const typeError = new TypeError('x');
    expect(toServiceError(typeError).cause).toBe(typeError);
  });
});
