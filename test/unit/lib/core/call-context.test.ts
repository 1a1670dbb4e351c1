import { describe, expect, it } from 'vitest';
import { callContextOf, withReserve } from '../../../../lib/core/call-context.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { Metrics } from '../../../../lib/core/metrics.ts';
import { testCall } from '../../../helpers/call-context.ts';

const quiet = createLogger({}, () => {});

describe('callContextOf', () => {
  it("reads the Lambda context's remaining time each time it is asked, not once", () => {
    let remaining = 9000;
    const call = callContextOf({ getRemainingTimeInMillis: () => remaining }, quiet);
    expect(call.remainingMs?.()).toBe(9000);
    remaining = 1200;
    expect(call.remainingMs?.()).toBe(1200);
  });

  it('has no end of its own when the context has no remaining time (a local run)', () => {
    const call = callContextOf({} as never, quiet);
    expect(call.remainingMs).toBeUndefined();
  });

  it('gives each invocation metrics of its own, unless it is handed some', () => {
    const context = { getRemainingTimeInMillis: () => 1000 };
    const first = callContextOf(context, quiet);
    const second = callContextOf(context, quiet);
    expect(first.metrics).not.toBe(second.metrics);
    first.metrics.count('WebhookDuplicates', {});
    expect(second.metrics.take('test')).toEqual([]);
    const given = new Metrics();
    expect(callContextOf(context, quiet, given).metrics).toBe(given);
  });

  it('carries the log it is given', () => {
    expect(callContextOf({} as never, quiet).log).toBe(quiet);
  });
});

describe('withReserve', () => {
  it('keeps back the reserve from the time left, read live', () => {
    let remaining = 10_000;
    const call = testCall({ remainingMs: () => remaining });
    const reserved = withReserve(call, 2500);
    expect(reserved.remainingMs?.()).toBe(7500);
    remaining = 3000;
    expect(reserved.remainingMs?.()).toBe(500);
    // The invocation's own context is left as it was.
    expect(call.remainingMs?.()).toBe(3000);
  });

  it('keeps the metrics and the log of the invocation', () => {
    const call = testCall({ remainingMs: () => 1000 });
    const reserved = withReserve(call, 100);
    expect(reserved.metrics).toBe(call.metrics);
    expect(reserved.log).toBe(call.log);
  });

  it('leaves a context without an end as it is', () => {
    const call = testCall();
    expect(withReserve(call, 1000)).toBe(call);
  });
});
