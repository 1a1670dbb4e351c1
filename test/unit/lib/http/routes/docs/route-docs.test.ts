/** An area's docs over what every route of the area has (lib/http/routes/docs/route-docs.ts). */
import { describe, expect, it } from 'vitest';
import { areaDocs, PLATFORM_JSON } from '../../../../../../lib/http/routes/docs/route-docs.ts';
import { jobRoutes } from '../../../../../../lib/http/routes/jobs.ts';

describe('areaDocs', () => {
  it("gives each route of the area the area's docs, and its own over them", () => {
    const docs = areaDocs(
      jobRoutes,
      (route) => ({ responses: [PLATFORM_JSON], upstream: route.path }),
      { listJobs: { upstream: 'its own' } },
    );
    expect(Object.keys(docs)).toEqual(Object.keys(jobRoutes));
    expect(docs.listJobs).toEqual({ responses: [PLATFORM_JSON], upstream: 'its own' });
    expect(docs.stopJob).toEqual({
      responses: [PLATFORM_JSON],
      upstream: '/jobs/{instanceId}/stop',
    });
  });
});
