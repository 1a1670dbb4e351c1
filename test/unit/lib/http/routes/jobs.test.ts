/**
 * The scan job routes of the registry (lib/http/routes/jobs.ts): where each is served, the
 * scope each needs, what each spends of the usage plans, the input each takes, and that the
 * answer cancel-reserved documents is the one its workflow gives.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../../lib/core/errors.ts';
import { grants } from '../../../../../lib/core/scopes.ts';
import { docsOf } from '../../../../../lib/http/routes/docs/index.ts';
import { jobRoutes } from '../../../../../lib/http/routes/jobs.ts';
import { type JsonSchema, routeKeyOf } from '../../../../../lib/http/routes/route.ts';
import {
  type CancelReservedCalls,
  cancelReserved,
} from '../../../../../lib/scan-jobs/cancel-reserved.ts';
import type { SearchBody } from '../../../../../lib/scan-jobs/schemas.ts';
import type { UpstreamAnswer } from '../../../../../lib/upstream/client.ts';
import { ONE_REQUEST } from '../../../../../lib/usage/units.ts';
import { testCall } from '../../../../helpers/call-context.ts';

type AjvClass = typeof import('ajv').default;

/** A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) of one schema. */
function validatorOf(schema: JsonSchema) {
  const ajv = new (Ajv2020 as unknown as AjvClass)({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  return (value: unknown) => (validate(value) ? [] : (validate.errors ?? []));
}

const answer = (value: unknown): UpstreamAnswer => ({
  status: 200,
  headers: {},
  body: Buffer.from(JSON.stringify(value)),
  attempts: 1,
});

/** One page of reserved jobs `r0`..`r<n-1>`; the cancel of `r1` refused by the platform. */
function onePageOfReserved(n: number): CancelReservedCalls {
  return {
    async search(body: SearchBody) {
      const record_data = Array.from({ length: n }, (_, i) => ({
        instanceNo: `r${i}`,
        status: 'Reservation',
      }));
      return answer({ resources: { record_data, total_page_cnt: String(body.page) } });
    },
    async cancel(id: string) {
      if (id === 'r1')
        throw new UpstreamError({ status: 400, code: '901', message: 'API Call Fail' });
      return answer({ returnCode: '0' });
    },
    searchPageSize: { get: () => undefined, set: () => {} },
  };
}

const SETTINGS = { pageSize: 100, pageConcurrency: 2, cancelConcurrency: 2 };
const CRITERIA = { searchType: 'memo', searchKeyword: 'nightly' } as const;

describe('the scan job routes', () => {
  it('are served by a function each, at their method and path', () => {
    expect(Object.values(jobRoutes).map((route) => [route.function, routeKeyOf(route)])).toEqual([
      ['listJobs', 'GET /jobs'],
      ['searchJobs', 'POST /jobs/search'],
      ['cancelReservedJobs', 'POST /jobs/cancel-reserved'],
      ['cancelJob', 'PATCH /jobs/{instanceId}/cancel'],
      ['stopJob', 'PATCH /jobs/{instanceId}/stop'],
      ['getJobReport', 'GET /jobs/{instanceId}/report'],
    ]);
    for (const [key, route] of Object.entries(jobRoutes)) {
      expect(route.id).toBe(key);
      expect(route.tag).toBe('jobs');
    }
  });

  it('need a scope each: reading, cancelling and stopping apart', () => {
    expect(
      Object.fromEntries(Object.values(jobRoutes).map((route) => [route.id, route.access])),
    ).toEqual({
      listJobs: { scope: 'jobs:read' },
      searchJobs: { scope: 'jobs:read' },
      cancelReservedJobs: { scope: 'jobs:cancel-reserved' },
      cancelJob: { scope: 'jobs:cancel' },
      stopJob: { scope: 'jobs:stop' },
      getJobReport: { scope: 'jobs:read' },
    });
  });

  it('let no caller cancel every reserved job with the scope to cancel one', () => {
    const scope = jobRoutes.cancelReservedJobs.access;
    if (typeof scope !== 'object') throw new Error('cancel-reserved needs a scope');
    expect(grants(['jobs:cancel', 'jobs:read', 'jobs:stop'], scope.scope)).toBe(false);
    expect(grants(['jobs:cancel-reserved'], scope.scope)).toBe(true);
  });

  it("spend one request of the caller's plans each, whatever the body; cancel-reserved one a call", () => {
    const { cancelReservedJobs, ...single } = jobRoutes;
    expect(cancelReservedJobs.spends).toBe('per-call');
    for (const route of Object.values(single)) {
      if (typeof route.spends !== 'function') throw new Error(`${route.id} spends per request`);
      expect(route.spends({ body: undefined }), route.id).toEqual(ONE_REQUEST);
      expect(route.spends({ body: { searchKeyword: 'x'.repeat(500) } }), route.id).toEqual(
        ONE_REQUEST,
      );
    }
  });

  it('take their input where it comes: a query, a JSON body, a job id in the path', () => {
    const { listJobs, searchJobs, cancelReservedJobs, cancelJob, stopJob, getJobReport } =
      jobRoutes;
    expect(listJobs.input?.query?.parse({})).toEqual({ page: 1, limit: 10 });
    expect(searchJobs.input?.body?.parse({})).toMatchObject({ searchType: '', limit: 10 });
    expect(cancelReservedJobs.input?.body?.safeParse({ searchType: 'url' }).success).toBe(false);
    for (const route of [cancelJob, stopJob, getJobReport]) {
      expect(route.input?.path?.parse({ instanceId: '2810017' })).toEqual({
        instanceId: '2810017',
      });
      expect(route.input?.path?.safeParse({ instanceId: '..' }).success, route.id).toBe(false);
      expect(route.input?.body).toBeUndefined();
    }
  });
});

describe("cancel-reserved's documented answer", () => {
  const [ok] = docsOf(jobRoutes.cancelReservedJobs).responses;
  const check = validatorOf(ok?.schema ?? {});

  it('is a JSON 200', () => {
    expect(ok).toMatchObject({ status: 200, contentTypes: ['application/json'] });
  });

  it('holds what the workflow answers: jobs cancelled, failed with the reason, remaining', async () => {
    const result = await cancelReserved(onePageOfReserved(4), CRITERIA, testCall(), SETTINGS);
    expect(result).toMatchObject({ failed: [{ instanceNo: 'r1' }], complete: true });
    expect(check(result)).toEqual([]);
    // The time left covers no cancel: every job remains.
    const cut = await cancelReserved(
      onePageOfReserved(3),
      CRITERIA,
      testCall({ remainingMs: () => 1200 }),
      SETTINGS,
    );
    expect(cut).toMatchObject({ cancelled: [], remaining: ['r0', 'r1', 'r2'], complete: false });
    expect(check(cut)).toEqual([]);
  });

  it("holds a dry run's answer", async () => {
    const dryRun = await cancelReserved(
      onePageOfReserved(2),
      { ...CRITERIA, dryRun: true },
      testCall(),
      SETTINGS,
    );
    expect(dryRun).toMatchObject({ dryRun: true, reserved: ['r0', 'r1'] });
    expect(check(dryRun)).toEqual([]);
  });

  it('holds nothing else: no half of each, no member it does not name', () => {
    const failed = [{ instanceNo: 'r1', error: { errorCode: '901', message: 'API Call Fail' } }];
    const result = { cancelled: ['r0'], failed, remaining: [], complete: true };
    expect(check(result)).toEqual([]);
    expect(check({ ...result, dryRun: true })).not.toEqual([]);
    expect(check({ ...result, remaining: undefined })).not.toEqual([]);
    expect(check({ ...result, failed: [{ instanceNo: 'r1' }] })).not.toEqual([]);
    expect(check({ dryRun: false, reserved: [], failed: [], complete: true })).not.toEqual([]);
  });
});
