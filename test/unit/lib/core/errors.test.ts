/**
 * The one error taxonomy (lib/core/errors.ts): what a caller sees of each failure (status,
 * errorCode, message, details, headers, as docs/errors.md tables them), what the request line
 * logs of it (its reason, never a value), and the failures that never reach a caller as such.
 */
import { describe, expect, it } from 'vitest';
import {
  CallerAuthError,
  type CallerAuthReason,
  CallerScopeError,
  CallersUnavailableError,
  ConfigError,
  ConfigurationError,
  CredentialsUnavailableError,
  ExtensionUnreachableError,
  InputError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  QuotaExceededError,
  RateLimitedError,
  SecretError,
  SecretReadError,
  ServiceError,
  ThrottleLimitedError,
  TooManyMatchesError,
  toServiceError,
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
} from '../../../../lib/core/errors.js';

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
  ['a wrong configuration', new ConfigurationError(), 500, '900', 'Unexpected Error'],
  ['anything unexpected', new UnexpectedError(), 500, '900', 'Unexpected Error'],
];

describe('the errors a caller sees', () => {
  it.each(CALLER_ERRORS)('%s: %s', (_cause, error, status, code, message) => {
    expect(error).toBeInstanceOf(ServiceError);
    expect(seen(error)).toEqual([status, code, message]);
  });

  it("passes an upstream error's own status, code and message on", () => {
    const error = new UpstreamError({ status: 403, code: '403', message: 'Forbidden' });
    expect(seen(error)).toEqual([403, '403', 'Forbidden']);
    expect(error.headers).toEqual({});
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
      [new ConfigurationError(), 'ConfigurationError'],
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

  it('keeps the cause it was given, and has none when given none', () => {
    const cause = new Error('connect ECONNREFUSED');
    expect(new UpstreamUnreachableError(cause).cause).toBe(cause);
    expect(new UnexpectedError(cause).cause).toBe(cause);
    expect(new UpstreamTimeoutError()).not.toHaveProperty('cause');
    expect(new ServiceError({ status: 500, code: '900', message: 'm' })).not.toHaveProperty(
      'cause',
    );
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
    [new ConfigurationError(), 'configuration-invalid'],
    [new UnexpectedError(), 'unexpected'],
    [new UpstreamError({ status: 400, code: 'N2MT05', message: 'Bad text' }), 'upstream-N2MT05'],
  ])('says why a %s was answered', (error, reason) => {
    expect(error.reason).toBe(reason);
  });

  it("keeps the reason an upstream error was given (the scan job hints')", () => {
    const given = new UpstreamError({
      status: 400,
      code: '901',
      message: 'x',
      reason: 'upstream-901 cancel',
    });
    expect(given.reason).toBe('upstream-901 cancel');
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

  it('is 1 when the usage counters are down', () => {
    expect(new UsageStoreUnavailableError().headers).toEqual({ 'Retry-After': '1' });
  });

  it("comes with a plan's RateLimit fields, and is the refusal's own whatever they say", () => {
    const fields = {
      'RateLimit-Policy': '"caller-rate";q=5;w=1',
      RateLimit: '"caller-rate";r=0;t=1',
      'Retry-After': '99',
    };
    expect(new RateLimitedError('caller', 0.5, fields).headers).toEqual({
      ...fields,
      'Retry-After': '1',
    });
    expect(new QuotaExceededError('account', 'monthQuotaRequest', 3600, fields).headers).toEqual({
      ...fields,
      'Retry-After': '3600',
    });
  });
});

describe('details that teach, and reasons that log no value', () => {
  it.each([
    ['missing-token', 'No Authorization header: send "Authorization: Bearer <token>".'],
    [
      'not-bearer',
      'The Authorization header is not a bearer token: send "Authorization: Bearer <token>".',
    ],
    ['unknown-or-expired-token', 'The bearer token is unknown or has expired.'],
  ] as [CallerAuthReason, string][])('a %s token is told so', (reason, details) => {
    const error = new CallerAuthError(reason);
    expect([error.details, error.reason, error.authReason]).toEqual([details, reason, reason]);
  });

  it('tells an unknown token and an expired one alike (no answer says which tokens exist)', () => {
    expect(new CallerAuthError().details).toBe('The bearer token is unknown or has expired.');
  });

  it('names the scope a caller lacks', () => {
    const error = new CallerScopeError('jobs:cancel-reserved');
    expect(error.details).toBe('This caller lacks the scope "jobs:cancel-reserved".');
    expect(error.reason).toBe('missing-scope jobs:cancel-reserved');
  });

  it('logs the paths of bad input, each once, and an unknown member as (unknown)', () => {
    const error = new InputError([
      { path: 'query.page', issue: 'expected a positive integer, got "x"' },
      { path: 'query.page', issue: 'another issue of the same member' },
      { path: 'body.limit', issue: 'expected a positive integer' },
      { path: 'body.apiKeySecretValue', issue: 'unknown member; expected one of limit, page' },
    ]);
    expect(error.reason).toBe('invalid input: query.page body.limit body.(unknown)');
    expect(error.reason).not.toContain('apiKeySecretValue');
    expect(error.details).toHaveLength(4);
  });

  it('answers 405 with the methods allowed, in Allow and in details', () => {
    const error = new MethodNotAllowedError(['GET', 'POST']);
    expect(error.headers).toEqual({ Allow: 'GET, POST' });
    expect(error.details).toBe('Allowed: GET, POST');
  });

  it('states the body limit as people write it, and in bytes', () => {
    expect(new PayloadTooLargeError(6 * 1024 * 1024).details).toBe(
      'The request body is over the limit of 6 MB (6291456 bytes).',
    );
    expect(new PayloadTooLargeError(1_048_576).details).toContain('1 MB (1048576 bytes)');
  });

  it('gives the count a cancel-reserved found over its expectAtMost, and says nothing was cancelled', () => {
    const error = new TooManyMatchesError(1200, 1000);
    expect(error.found).toBe(1200);
    expect(error.details).toEqual([
      {
        path: 'expectAtMost',
        issue: 'the search found 1200 reserved jobs, more than 1000; nothing was cancelled',
      },
    ]);
  });

  it('names the plan and the limit a refusal came from, never a caller', () => {
    const quota = new QuotaExceededError('account', 'monthQuotaCharacters.translate', 60);
    expect([quota.plan, quota.limit]).toEqual(['account', 'monthQuotaCharacters.translate']);
    expect(quota.details).toBe(
      "Over the account plan's monthQuotaCharacters.translate; it resets with the window (Retry-After).",
    );
    expect(new RateLimitedError('caller', 1).details).toBe(
      "Over the caller plan's rateRps; retry after the Retry-After seconds.",
    );
  });

  it('tells a caller the configuration is wrong and retrying will not help, naming nothing of it', () => {
    const error = new ConfigurationError(new SecretError('signing.accessKey: Required'));
    expect(error.details).toMatch(/configuration is invalid.*retrying will not help/s);
    expect(JSON.stringify(error.details)).not.toContain('accessKey');
  });

  it('says whether an unreachable upstream may have had the request: yes unless told no', () => {
    expect(new UpstreamUnreachableError().maybeSent).toBe(true);
    expect(new UpstreamUnreachableError(new Error('ECONNREFUSED'), false).maybeSent).toBe(false);
  });
});

describe('a body limit, as people write it', () => {
  it.each([
    [6 * 1024 * 1024, '6 MB'],
    [10 * 1024 * 1024, '10 MB'],
    [16 * 1024, '16 KB'],
    [1536 * 1024, '1536 KB'],
    [1000, '1000 bytes'],
  ])('writes %i as %s', (bytes, text) => {
    expect(new PayloadTooLargeError(bytes).details).toBe(
      `The request body is over the limit of ${text} (${bytes} bytes).`,
    );
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
    expect(error).toBeInstanceOf(ConfigurationError);
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

describe('the failures that never reach a caller as such', () => {
  it("says whether a secret's failure needs an operator: no, unless told", () => {
    const cause = new Error('timeout');
    const passing = new SecretError('Could not read the secret', { cause });
    expect([passing.misconfigured, passing.cause]).toEqual([false, cause]);
    expect(new SecretError('invalid', { misconfigured: true }).misconfigured).toBe(true);
  });

  it("keeps Secrets Manager's exception name, and nothing of the secret", () => {
    const error = new SecretReadError(
      'Secrets Manager refused the read',
      'ResourceNotFoundException',
    );
    expect(error.type).toBe('ResourceNotFoundException');
  });

  it('reports a watcher run that did not finish with its name and message, and no stack frame', () => {
    const error = new WatchRunError('2 of 3 chunks were not announced');
    expect(error.stack).toBe('WatchRunError: 2 of 3 chunks were not announced');
  });
});
