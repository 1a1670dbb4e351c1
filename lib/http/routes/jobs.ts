/** The web security scan job routes: signed calls to the scan job API. */
import {
  cancelReservedBodySchema,
  instancePathSchema,
  listQuerySchema,
  searchBodySchema,
} from '../../scan-jobs/schemas.ts';
import { ONE_REQUEST } from '../../usage/units.ts';
import { defineRoute, routesOf } from './route.ts';

/** A job route calls the platform once a request, as the usage plans count it. */
const jobRoute = {
  tag: 'jobs',
  spends: () => ONE_REQUEST,
} as const;

export const jobRoutes = routesOf({
  listJobs: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    method: 'GET',
    path: '/jobs',
    summary: 'List scan jobs, one page',
    input: { query: listQuerySchema },
  }),
  searchJobs: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    method: 'POST',
    path: '/jobs/search',
    summary: 'Search scan jobs by URL or memo',
    input: { body: searchBodySchema },
  }),
  cancelReservedJobs: defineRoute({
    ...jobRoute,
    // Every page it reads and every job it cancels is a call of the platform: one unit each,
    // taken as it goes (functions/jobs/cancel-reserved.ts).
    spends: 'per-call',
    // Its own scope: one call may cancel every reserved job, so jobs:cancel alone does not allow it.
    access: { scope: 'jobs:cancel-reserved' },
    method: 'POST',
    path: '/jobs/cancel-reserved',
    summary: 'Cancel every reserved job a search finds, across all pages, several at a time',
    input: { body: cancelReservedBodySchema },
  }),
  cancelJob: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:cancel' },
    method: 'PATCH',
    path: '/jobs/{instanceId}/cancel',
    summary: 'Cancel a job that has not started',
    input: { path: instancePathSchema },
  }),
  stopJob: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:stop' },
    method: 'PATCH',
    path: '/jobs/{instanceId}/stop',
    summary: 'Stop a running job',
    input: { path: instancePathSchema },
  }),
  getJobReport: defineRoute({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    // A large site's report may pass what a Lambda function can return; kept as an attachment.
    handsOff: true,
    method: 'GET',
    path: '/jobs/{instanceId}/report',
    summary: "A finished job's report, byte for byte",
    input: { path: instancePathSchema },
  }),
});
