/**
 * The one error taxonomy (lib/core/errors.ts), every family through it: what a caller sees of
 * each failure (status, errorCode, message, as docs/errors.md tables them), the name and the
 * reason the request line logs of it (never a value), and Retry-After wherever one is sent. What
 * each family says beyond that is in its own test (request-errors, plan-errors, upstream-errors,
 * internal-errors, service-error).
 */
import { describe, expect, it } from 'vitest';
import {
  CallerAuthError,
  CallerScopeError,
  CallersUnavailableError,
  ConfigError,
  CredentialsUnavailableError,
  ExtensionUnreachableError,
  InputError,
  MethodNotAllowedError,
  MisconfiguredError,
  NotFoundError,
  PayloadTooLargeError,
  QuotaExceededError,
  RateLimitedError,
  SecretError,
  SecretReadError,
  ServiceError,
  ThrottleLimitedError,
  TooManyMatchesError,
  UnexpectedError,
  UpstreamError,
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
  UsageStoreUnavailableError,
  WatcherStateError,
  WatchRunError,
  WebhookSignatureError,
  WebhooksUnavailableError,
} from '../../../../lib/core/errors.ts';

/** What a caller sees of an error: its status, errorCode and message. */
const seen = (error: ServiceError) => [error.status, error.code, error.message];

/** One of each error a caller may see, with its cause, status, errorCode and message. */
const CALLER_ERRORS: [string, ServiceError, number, string, string][] = [
  [
    'bad input',
    new InputError([{ path: 'query.page', issue: 'x' }]),
    400,
    '100',
    'Bad Request Exception',
  ],
  ['no or bad token', new CallerAuthError(), 401, '200', 'Authentication Failed'],
  [
    'a bad webhook signature',
    new WebhookSignatureError('No matching signature found'),
    401,
    '200',
    'Authentication Failed',
  ],
  [
    'a caller without the scope',
    new CallerScopeError('jobs:read'),
    403,
    '210',
    'Permission Denied',
  ],
  ['callers not checkable', new CallersUnavailableError(3), 503, '500', 'Service Unavailable'],
  ['webhooks not checkable', new WebhooksUnavailableError(3), 503, '500', 'Service Unavailable'],
  ['over a rate', new RateLimitedError('caller', 1), 429, '420', 'Rate Limited'],
  [
    'over a quota',
    new QuotaExceededError('account', 'dayQuotaRequest', 60),
    429,
    '400',
    'Quota Exceeded',
  ],
  [
    'a second long run',
    new ThrottleLimitedError('cancel-reserved', 30),
    429,
    '410',
    'Throttle Limited',
  ],
  [
    'usage store down, held closed',
    new UsageStoreUnavailableError(),
    503,
    '500',
    'Service Unavailable',
  ],
  ['more matches than expected', new TooManyMatchesError(12, 10), 409, '100', 'Conflict'],
  ['unknown route', new NotFoundError(), 404, '300', 'Not Found Exception'],
  ['wrong method', new MethodNotAllowedError(['GET']), 405, '100', 'Method Not Allowed'],
  [
    'body over the limit',
    new PayloadTooLargeError(6 * 1024 * 1024),
    413,
    '430',
    'Request Entity Too Large',
  ],
  ['upstream unreachable', new UpstreamUnreachableError(), 503, '500', 'Endpoint Error'],
  ['no credentials yet', new CredentialsUnavailableError(3), 503, '500', 'Service Unavailable'],
  ['upstream too slow', new UpstreamTimeoutError(), 504, '510', 'Endpoint Timeout'],
  [
    'upstream answer too large',
    new UpstreamResponseTooLargeError(6_291_456),
    502,
    '520',
    'Response Too Large',
  ],
  ['a wrong configuration', new MisconfiguredError(), 500, '900', 'Unexpected Error'],
  ['anything unexpected', new UnexpectedError(), 500, '900', 'Unexpected Error'],
];

describe('the errors a caller sees', () => {
  it.each(CALLER_ERRORS)('%s: %s', (_cause, error, status, code, message) => {
    expect(error).toBeInstanceOf(ServiceError);
    expect(seen(error)).toEqual([status, code, message]);
  });

  it('names each error by its own name in a log line, whatever a bundler renames its class', () => {
    const named: [Error, string][] = [
      [new ServiceError({ status: 400, code: '100', message: 'm' }), 'ServiceError'],
      [new InputError([]), 'InputError'],
      [new CallerAuthError(), 'CallerAuthError'],
      [new CallerScopeError('a'), 'CallerScopeError'],
      [new CallersUnavailableError(1), 'CallersUnavailableError'],
      [new WebhooksUnavailableError(1), 'WebhooksUnavailableError'],
      [new WebhookSignatureError('r'), 'WebhookSignatureError'],
      [new TooManyMatchesError(2, 1), 'TooManyMatchesError'],
      [new NotFoundError(), 'NotFoundError'],
      [new MethodNotAllowedError([]), 'MethodNotAllowedError'],
      [new PayloadTooLargeError(1), 'PayloadTooLargeError'],
      [new RateLimitedError('caller', 1), 'RateLimitedError'],
      [new QuotaExceededError('caller', 'x', 1), 'QuotaExceededError'],
      [new ThrottleLimitedError('x', 1), 'ThrottleLimitedError'],
      [new UsageStoreUnavailableError(), 'UsageStoreUnavailableError'],
      [new UpstreamUnreachableError(), 'UpstreamUnreachableError'],
      [new UpstreamTimeoutError(), 'UpstreamTimeoutError'],
      [new UpstreamResponseTooLargeError(1), 'UpstreamResponseTooLargeError'],
      [new CredentialsUnavailableError(1), 'CredentialsUnavailableError'],
      [new MisconfiguredError(), 'MisconfiguredError'],
      [new UpstreamError({ status: 500, code: 'x', message: 'm' }), 'UpstreamError'],
      [new UnexpectedError(), 'UnexpectedError'],
      [new ConfigError('m'), 'ConfigError'],
      [new SecretError('m'), 'SecretError'],
      [new WatcherStateError('m'), 'WatcherStateError'],
      [new WatchRunError('m'), 'WatchRunError'],
      [new SecretReadError('m', 'T'), 'SecretReadError'],
      [new ExtensionUnreachableError('m'), 'ExtensionUnreachableError'],
    ];
    expect(named.map(([error]) => error.name)).toEqual(named.map(([, name]) => name));
  });
});

describe("each error's reason, for the request's log line", () => {
  it.each([
    [new CallersUnavailableError(3), 'callers-unavailable'],
    [new WebhooksUnavailableError(3), 'webhooks-unavailable'],
    [new RateLimitedError('caller', 1), 'rate-limited caller rateRps'],
    [
      new QuotaExceededError('account', 'dayQuotaRequest', 60),
      'quota-exceeded account dayQuotaRequest',
    ],
    [new ThrottleLimitedError('cancel-reserved', 30), 'throttle-limited cancel-reserved'],
    [new UsageStoreUnavailableError(), 'usage-store-unavailable'],
    [new TooManyMatchesError(12, 10), 'too-many-matches'],
    [new UpstreamUnreachableError(), 'upstream-unreachable'],
    [new UpstreamTimeoutError(), 'upstream-timeout'],
    [new UpstreamResponseTooLargeError(6_291_456), 'upstream-response-too-large'],
    [new CredentialsUnavailableError(3), 'credentials-unavailable'],
    [new MisconfiguredError(), 'configuration-invalid'],
    [new UnexpectedError(), 'unexpected'],
    [new UpstreamError({ status: 400, code: 'N2MT05', message: 'Bad text' }), 'upstream-N2MT05'],
  ])('says why a %s was answered', (error, reason) => {
    expect(error.reason).toBe(reason);
  });

  it('is there for every error a caller sees (docs/errors.md: every 4xx and 5xx says why)', () => {
    for (const [, error] of CALLER_ERRORS) {
      expect(error.reason, error.name).toMatch(/\S/);
    }
  });
});

describe('Retry-After', () => {
  const later = {
    callers: (seconds: number) => new CallersUnavailableError(seconds),
    webhooks: (seconds: number) => new WebhooksUnavailableError(seconds),
    credentials: (seconds: number) => new CredentialsUnavailableError(seconds),
    rate: (seconds: number) => new RateLimitedError('caller', seconds),
    quota: (seconds: number) => new QuotaExceededError('caller', 'dayQuotaRequest', seconds),
    throttle: (seconds: number) => new ThrottleLimitedError('cancel-reserved', seconds),
  };

  it.each(Object.entries(later))('is whole seconds, rounded up, and at least 1 (%s)', (_, make) => {
    expect(make(0).headers['Retry-After']).toBe('1');
    expect(make(0.2).headers['Retry-After']).toBe('1');
    expect(make(2).headers['Retry-After']).toBe('2');
    expect(make(2.01).headers['Retry-After']).toBe('3');
    expect(make(-5).headers['Retry-After']).toBe('1');
  });
});
