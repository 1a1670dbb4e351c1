/**
 * The parts of a binding (lib/http/parts.ts). The meter binds a caller's bulk work: the handler
 * gets the request's meter (a unit of the caller's plans for each call), every answer, an
 * error's too, carries the plans' RateLimit fields as the walk left them, what the meter's
 * blocks left unused goes back at the end, and a route that meters its calls is bound with it
 * (bound without, it fails at init).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as BindModule from '../../../../lib/http/bind.ts';
import type * as PartsModule from '../../../../lib/http/parts.ts';
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
  const { bind } = (await import('../../../../lib/http/bind.ts')) as typeof BindModule;
  const { callerParts, meteringOf } = (await import(
    '../../../../lib/http/parts.ts'
  )) as typeof PartsModule;
  const { getRuntime } = (await import('../../../../lib/runtime.ts')) as typeof RuntimeModule;
  const { usageGateOf } = (await import('../../../../lib/usage/setup.ts')) as typeof SetupModule;
  const runtime = getRuntime();
  const meteredRoute = (handler: Parameters<typeof bind<typeof bulk>>[1]) =>
    bind(bulk, handler, { ...callerParts(runtime), meter: meteringOf(runtime) });
  return { bind, callerParts, meteredRoute, runtime, gate: usageGateOf(runtime) };
}

describe('meteringOf', () => {
  beforeEach(() => {
    captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('is what a route that meters each call is bound with: bound without it, it fails at init', async () => {
    const { bind, callerParts, runtime } = await coldStart();
    // @ts-expect-error: the route's type asks for its meter
    expect(() => bind(bulk, async () => ({ statusCode: 200 }), callerParts(runtime))).toThrow(
      'bulkRoute needs its meter',
    );
  });

  it('hands the handler the meter, puts the fields on its answer, and gives back what the blocks left', async () => {
    const { meteredRoute, gate } = await coldStart();
    const bound = meteredRoute(async (_request, meter) => {
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
    const bound = meteredRoute(async (_request, meter) => {
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
