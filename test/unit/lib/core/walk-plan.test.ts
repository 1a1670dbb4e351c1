import { describe, expect, it } from 'vitest';
import { WalkPlan } from '../../../../lib/core/walk-plan.ts';
import { testCall } from '../../../helpers/call-context.ts';

describe('WalkPlan', () => {
  it('gives its calls the invocation time less the reserve, and starts a call only when the time left covers it', async () => {
    let now = 0;
    let remaining = 10_000;
    const plan = new WalkPlan(testCall({ remainingMs: () => remaining }), {
      reserveMs: 1000,
      callReserveMs: 250,
      minCallMs: 50,
      now: () => now,
    });
    expect(plan.call.remainingMs?.()).toBe(9000);
    expect(plan.expectedCallMs()).toBe(100);
    await plan.time(async () => {
      now += 400;
    });
    expect(plan.expectedCallMs()).toBe(800);
    remaining = 1000 + 250 + 800;
    expect(plan.mayStart()).toBe(true);
    remaining -= 1;
    expect(plan.mayStart()).toBe(false);
  });

  it('always starts when the invocation has no deadline', () => {
    const plan = new WalkPlan(testCall(), { reserveMs: 1000 });
    expect(plan.call.remainingMs).toBeUndefined();
    expect(plan.remainingMs()).toBeUndefined();
    expect(plan.mayStart()).toBe(true);
  });

  it('judges by the slowest of the last 16 calls: an old slow call stops counting', async () => {
    let now = 0;
    const plan = new WalkPlan(testCall(), { reserveMs: 0, minCallMs: 10, now: () => now });
    const call = (ms: number) =>
      plan.time(async () => {
        now += ms;
      });
    await call(500);
    for (let i = 0; i < 15; i++) await call(20);
    expect(plan.expectedCallMs()).toBe(1000);
    await call(20);
    expect(plan.expectedCallMs()).toBe(40);
  });

  it('times a call that fails too, and hands its error back', async () => {
    let now = 0;
    const plan = new WalkPlan(testCall(), { reserveMs: 0, minCallMs: 10, now: () => now });
    await expect(
      plan.time(async () => {
        now += 300;
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(plan.expectedCallMs()).toBe(600);
  });

  it("hands back the call's value", async () => {
    const plan = new WalkPlan(testCall(), { reserveMs: 0 });
    await expect(plan.time(async () => 42)).resolves.toBe(42);
  });
});
