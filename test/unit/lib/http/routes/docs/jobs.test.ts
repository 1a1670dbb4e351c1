/** The scan job routes' docs (lib/http/routes/docs/jobs.ts). */
import { describe, expect, it } from 'vitest';
import { jobDocs } from '../../../../../../lib/http/routes/docs/jobs.ts';
import { jobRoutes } from '../../../../../../lib/http/routes/jobs.ts';

describe('the scan job routes’ docs', () => {
  it('name by default the path each passes through, the area’s for a new route too', () => {
    expect(jobDocs.stopJob?.upstream).toBe('`PATCH …/api/v1/jobs/{instanceId}/stop`');
    for (const id of Object.keys(jobRoutes)) expect(jobDocs[id]?.upstream, id).toBeTruthy();
  });

  it('say why cancel-reserved has a scope of its own', () => {
    expect(jobDocs.cancelReservedJobs?.accessNote).toContain(
      '`jobs:cancel` alone does not allow it',
    );
  });
});
