/** The web security scan job routes: signed calls to the scan job API. */
import {
  type CancelReservedBody,
  cancelReservedBodySchema,
  type InstancePath,
  instancePathSchema,
  type ListQuery,
  listQuerySchema,
  type SearchBody,
  searchBodySchema,
} from '../../scan-jobs/schemas.ts';
import { ONE_REQUEST } from '../../usage/units.ts';
import { defineRoute, document, PLATFORM_JSON, routesOf } from './route.ts';

/** A job route calls the platform once a request, as the usage plans count it. */
const jobRoute = {
  tag: 'jobs',
  spends: () => ONE_REQUEST,
} as const;

export const jobRoutes = routesOf({
  listJobs: defineRoute<undefined, ListQuery>({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    method: 'GET',
    path: '/jobs',
    summary: 'List scan jobs, one page',
    input: { query: listQuerySchema },
  }),
  searchJobs: defineRoute<SearchBody>({
    ...jobRoute,
    access: { scope: 'jobs:read' },
    method: 'POST',
    path: '/jobs/search',
    summary: 'Search scan jobs by URL or memo',
    input: { body: searchBodySchema },
  }),
  cancelReservedJobs: defineRoute<CancelReservedBody>({
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
  cancelJob: defineRoute<undefined, Record<string, never>, InstancePath>({
    ...jobRoute,
    access: { scope: 'jobs:cancel' },
    method: 'PATCH',
    path: '/jobs/{instanceId}/cancel',
    summary: 'Cancel a job that has not started',
    input: { path: instancePathSchema },
  }),
  stopJob: defineRoute<undefined, Record<string, never>, InstancePath>({
    ...jobRoute,
    access: { scope: 'jobs:stop' },
    method: 'PATCH',
    path: '/jobs/{instanceId}/stop',
    summary: 'Stop a running job',
    input: { path: instancePathSchema },
  }),
  getJobReport: defineRoute<undefined, Record<string, never>, InstancePath>({
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

/** The jobs cancel-reserved could not cancel, each with the reason. */
const FAILED_JOBS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['instanceNo', 'error'],
    properties: {
      instanceNo: { type: 'string' },
      error: {
        type: 'object',
        required: ['errorCode', 'message'],
        properties: {
          errorCode: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'string' },
        },
      },
    },
  },
};

ROUTE_DOCS: {
  for (const route of Object.values(jobRoutes)) document(route, { responses: [PLATFORM_JSON] });
  document(jobRoutes.cancelReservedJobs, {
    description:
      '`dryRun: true` answers the reserved jobs it would cancel and cancels nothing. With ' +
      '`expectAtMost: N`, when the search finds more than N reserved jobs nothing is cancelled ' +
      'and the answer is 409/`100`, with the count found in `details`.',
    responses: [
      {
        status: 200,
        description:
          "The jobs cancelled, those that could not be (with the reason), and the reserved jobs found but not attempted when the time ran out or the caller's usage plans were spent (each page read and each cancel takes a unit); call again to go on. A dry run: the reserved jobs it would cancel",
        contentTypes: ['application/json'],
        schema: {
          oneOf: [
            {
              type: 'object',
              required: ['cancelled', 'failed', 'remaining', 'complete'],
              additionalProperties: false,
              properties: {
                cancelled: { type: 'array', items: { type: 'string' } },
                failed: FAILED_JOBS,
                remaining: {
                  type: 'array',
                  items: { type: 'string' },
                  description:
                    "Reserved jobs found but not attempted: the time left, or the caller's usage plans, could not cover them",
                },
                complete: {
                  type: 'boolean',
                  description: 'Every page was read and every reserved job found was attempted',
                },
              },
            },
            {
              type: 'object',
              required: ['dryRun', 'reserved', 'failed', 'complete'],
              additionalProperties: false,
              properties: {
                dryRun: { const: true },
                reserved: {
                  type: 'array',
                  items: { type: 'string' },
                  description: 'The reserved jobs found, which a call would cancel',
                },
                failed: FAILED_JOBS,
                complete: { type: 'boolean', description: 'Every page was read' },
              },
            },
          ],
        },
      },
    ],
  });
}
