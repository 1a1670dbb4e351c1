/** The scan job routes' docs: each passes the platform's answer through from the path it names. */
import { jobRoutes } from '../jobs.ts';
import { areaDocs, PLATFORM_JSON } from './route-docs.ts';

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

export const jobDocs = areaDocs(
  jobRoutes,
  (route) => ({
    responses: [PLATFORM_JSON],
    upstream: `\`${route.method} …/api/v1${route.path}\``,
  }),
  {
    listJobs: {
      upstream:
        '`GET {SCAN_BASE_URL}/api/v1/jobs?page=&limit=` (defaults 1 and 10; any other parameter is a 400)',
    },
    searchJobs: {
      upstream:
        '`POST …/api/v1/jobs/search` (JSON: `searchType` `memo`/`url`/`""`, `searchKeyword`, `statusCode` null or a string, `limit`, `page`)',
    },
    getJobReport: {
      upstream: '`GET …/api/v1/jobs/{instanceId}/report`, body and Content-Type byte for byte',
    },
    cancelReservedJobs: {
      upstream:
        'cancels every job in `Reservation` that the search finds, several at a time (scope `jobs:cancel-reserved`; `dryRun` lists them, `expectAtMost` refuses more with 409); answers `{"cancelled","failed","remaining","complete"}`: what the time or the caller\'s plans could not cover is in `remaining`, and a second call goes on ([docs/retries.md](docs/retries.md#bulk-calls)); each page read and cancel takes a unit of the caller\'s plans ([docs/callers.md](docs/callers.md#what-is-counted-and-when))',
      accessNote:
        'one call may cancel every reserved job, so `jobs:cancel` alone does not allow it',
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
    },
  },
);
