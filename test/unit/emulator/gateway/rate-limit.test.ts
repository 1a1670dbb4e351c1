import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../../emulator/gateway/rate-limit.ts';

describe('RateLimiter', () => {
  it('accepts a burst of one second, then one request per 1000/perSecond ms', () => {
    let now = 0;
    const limiter = new RateLimiter(10, () => now);
    for (let i = 0; i < 10; i++) expect(limiter.take()).toBe(true);
    expect(limiter.take()).toBe(false);
    now += 99;
    expect(limiter.take()).toBe(false);
    now += 1;
    expect(limiter.take()).toBe(true);
    expect(limiter.take()).toBe(false);
    limiter.refill();
    expect(limiter.take()).toBe(true);
  });
});
