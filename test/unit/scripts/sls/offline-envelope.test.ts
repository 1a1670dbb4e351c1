import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { lambdaFailureOf } = require('../../../../scripts/sls/offline-envelope.cjs') as {
  lambdaFailureOf: (response: { source?: unknown }) => { status: number; code: string } | undefined;
};

/** What serverless offline wraps in a 200 when an invocation fails (HttpServer.js). */
const mockLambdaError = (errorType: string) =>
  JSON.stringify({
    errorMessage: '[504] - Lambda timeout.',
    errorType,
    stackTrace: ['LambdaTimeoutError: [504] - Lambda timeout.', '    at LambdaFunction.js:290'],
  });

describe("serverless offline's mock Lambda errors", () => {
  it('become 504/510 for a timeout and 500/900 for any other failure', () => {
    expect(lambdaFailureOf({ source: mockLambdaError('LambdaTimeoutError') })).toMatchObject({
      status: 504,
      code: '510',
    });
    expect(lambdaFailureOf({ source: mockLambdaError('TypeError') })).toMatchObject({
      status: 500,
      code: '900',
    });
  });

  it("leave the functions' own answers alone", () => {
    expect(lambdaFailureOf({ source: '{"error":{"errorCode":"510","message":"x"}}' })).toBe(
      undefined,
    );
    expect(lambdaFailureOf({ source: '{"stackTrace":"text, not a Lambda error"}' })).toBe(
      undefined,
    );
    expect(lambdaFailureOf({ source: Buffer.from('binary') })).toBe(undefined);
  });
});
