/**
 * What a request did wrong, as its caller is told: details that teach, and reasons that log no
 * value (a token, a member name the caller sent).
 */
import { describe, expect, it } from 'vitest';
import {
  CallerAuthError,
  type CallerAuthReason,
  CallerScopeError,
  InputError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  TooManyMatchesError,
} from '../../../../lib/core/request-errors.ts';

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
