/**
 * meteredRoute binds a caller's bulk work: the handler gets the request's meter (a unit of the
 * caller's plans for each call), every answer, an error's too, carries the plans' RateLimit
 * fields as the walk left them, what the meter's blocks left unused goes back at the end, and
 * only a route that meters its calls may be bound so (callerRoute refuses one).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as CallerRouteModule from '../../../../lib/http/caller-route.ts';
import type * as MeteredRouteModule from '../../../../lib/http/metered-route.ts';
import { defineRoute } from '../../../../lib/http/routes/route.ts';
import type * as RuntimeModule from '../../../../lib/runtime.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import type * as SetupModule from '../../../../lib/usage/setup.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { coldStartWith, DEMO_TOKENS } from './fresh-runtime.ts';

const bulk = defineRoute({
  function: 'testFunction',
  id: 'bulkRoute',
  method: 'POST',
  path: '/jobs/search',
  access: { scope: 'jobs:read' },
  spends: 'per-call',
  summary: 'bulk work of the test',
  tag: 'test',
});

const event = (authorization?: string) =>
  httpEvent('jobs-search.json', { headers: { authorization } });

async function coldStart() {
  coldStartWith({});
  const { meteredRoute } = (await import(
    '../../../../lib/http/metered-route.ts'
  )) as typeof MeteredRouteModule;
  const { callerRoute } = (await import(
    '../../../../lib/http/caller-route.ts'
  )) as typeof CallerRouteModule;
  const { getRuntime } = (await import('../../../../lib/runtime.ts')) as typeof RuntimeModule;
  const { usageGateOf } = (await import('../../../../lib/usage/setup.ts')) as typeof SetupModule;
  return { meteredRoute, callerRoute, gate: usageGateOf(getRuntime()) };
}

describe('meteredRoute', () => {
  beforeEach(() => {
    captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('binds only a route that meters each call; callerRoute refuses one', async () => {
    const { meteredRoute, callerRoute } = await coldStart();
    const single = { ...bulk, spends: () => ({ requests: 1 }) };
    expect(() => meteredRoute(single, async () => ({ statusCode: 200 }))).toThrow('callerRoute');
    expect(() => callerRoute(bulk, async () => ({ statusCode: 200 }))).toThrow('meteredRoute');
  });

  it('hands the handler the meter, puts the fields on its answer, and gives back what the blocks left', async () => {
    const { meteredRoute, gate } = await coldStart();
    const bound = meteredRoute(bulk, async (_request, meter) => {
      meter.expect(10);
      for (let call = 0; call < 3; call++) expect(await meter.take(() => true)).toBeUndefined();
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    });
    const result = await bound(event(`Bearer ${DEMO_TOKENS.metered}`), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['RateLimit-Policy']).toContain('"caller-rate";q=5');
    expect(result.headers?.RateLimit).toContain('"caller-rate";r=');
    // A block of 10 (the burst) was taken for the 10 calls expected; 3 went out.
    const plans = { plan: { rateRps: 5, burst: 10 }, accountPlan: undefined };
    await gate.settled();
    const report = await usageReport(gate, 'demo-metered', plans);
    expect(report.caller.day.requests).toBe(3);
  });

  it("puts the fields on an error's answer too, and gives back what the blocks left", async () => {
    const { meteredRoute, gate } = await coldStart();
    const bound = meteredRoute(bulk, async (_request, meter) => {
      meter.expect(5);
      await meter.take(() => true);
      throw new Error('the walk failed');
    });
    const result = await bound(event(`Bearer ${DEMO_TOKENS.metered}`), lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '900' } });
    expect(result.headers?.['RateLimit-Policy']).toContain('"caller-rate"');
    const plans = { plan: { rateRps: 5, burst: 10 }, accountPlan: undefined };
    expect((await usageReport(gate, 'demo-metered', plans)).caller.day.requests).toBe(1);
  });
});
