import { type AnswerSizes, sizedJson, sizedRoute } from '../core/answer-sizes.ts';
import { CONTROL_PREFIX, ControlError, type ControlRoute } from '../core/control-api.ts';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiModule, ApiRoute } from '../gateway/api-module.ts';
import { endpointJson, mediaType } from '../gateway/envelope.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import {
  DEFAULT_LIMIT,
  DEFAULT_MAX_LIMIT,
  DEFAULT_PAGE,
  pageResult,
  positiveIntParam,
} from './pagination.ts';
import { buildReport } from './report.ts';
import { apiCallFail, requestSuccess } from './responses.ts';
import { matchesSearch, parseSearchBody } from './search.ts';
import type { ScanJobStore, TransitionOutcome } from './store.ts';

const SCAN_JOB_PATH_PREFIX = '/api/v1';

export interface ScanJobModuleOptions {
  readonly store: ScanJobStore;
  /** Signature v2 authentication, checked before any of the routes' own validation. */
  readonly authenticate: Authenticator;
  /** The largest page a list or search serves (DEFAULT_MAX_LIMIT); above it, 400/901. */
  readonly maxLimit?: number;
  /** The sizes a test asks of answers: a report's. */
  readonly sizes?: AnswerSizes;
}

function pageOf(
  store: ScanJobStore,
  matches: Parameters<ScanJobStore['page']>[0],
  page: number,
  limit: number,
): GatewayResponse {
  const { records, total } = store.page(matches, (page - 1) * limit, limit);
  return endpointJson(200, pageResult(records, total, page, limit));
}

function listJobs(store: ScanJobStore, query: URLSearchParams, maxLimit: number): GatewayResponse {
  const page = positiveIntParam(query, 'page', DEFAULT_PAGE);
  const limit = positiveIntParam(query, 'limit', DEFAULT_LIMIT);
  if (page === undefined || limit === undefined || limit > maxLimit) return apiCallFail();
  return pageOf(store, undefined, page, limit);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

// The backend takes JSON only; like every other bad input, anything else is its 901.
function searchJobs(
  store: ScanJobStore,
  request: GatewayRequest,
  maxLimit: number,
): GatewayResponse {
  if (mediaType(request.headers['content-type']) !== 'application/json') return apiCallFail();
  const criteria = parseSearchBody(parseJson(request.body));
  if (!criteria || criteria.limit > maxLimit) return apiCallFail();
  const matches = (record: Parameters<typeof matchesSearch>[0]) => matchesSearch(record, criteria);
  return pageOf(store, matches, criteria.page, criteria.limit);
}

function transitionResponse(outcome: TransitionOutcome): GatewayResponse {
  return outcome === 'done' ? requestSuccess() : apiCallFail();
}

function reportOf(store: ScanJobStore, instanceNo: string): GatewayResponse {
  const job = store.get(instanceNo);
  if (job?.status !== 'Complete') return apiCallFail();
  return endpointJson(200, buildReport(job));
}

const instanceIdOf = (params: Readonly<Record<string, string>>): string =>
  params['instanceId'] ?? '';

function apiRoutes(store: ScanJobStore, authenticate: Authenticator, maxLimit: number): ApiRoute[] {
  const jobs = `${SCAN_JOB_PATH_PREFIX}/jobs`;
  return [
    {
      method: 'GET',
      path: jobs,
      authenticate,
      handle: ({ request }) => listJobs(store, request.query, maxLimit),
    },
    {
      method: 'POST',
      path: `${jobs}/search`,
      authenticate,
      handle: ({ request }) => searchJobs(store, request, maxLimit),
    },
    {
      method: 'PATCH',
      path: `${jobs}/{instanceId}/cancel`,
      authenticate,
      handle: ({ params }) => transitionResponse(store.cancel(instanceIdOf(params))),
    },
    {
      method: 'PATCH',
      path: `${jobs}/{instanceId}/stop`,
      authenticate,
      handle: ({ params }) => transitionResponse(store.stop(instanceIdOf(params))),
    },
    {
      method: 'GET',
      path: `${jobs}/{instanceId}/report`,
      authenticate,
      handle: ({ params }) => reportOf(store, instanceIdOf(params)),
    },
  ];
}

function advanceOne(store: ScanJobStore, instanceNo: string) {
  if (!store.get(instanceNo))
    throw new ControlError(404, `No scan job with instanceNo "${instanceNo}"`);
  return { status: 200, body: { advanced: store.advance(instanceNo) } };
}

function controlRoutes(store: ScanJobStore): ControlRoute[] {
  const jobs = `${CONTROL_PREFIX}/jobs`;
  return [
    { method: 'GET', path: jobs, handle: () => ({ status: 200, body: { jobs: store.list() } }) },
    {
      method: 'POST',
      path: `${jobs}/advance`,
      handle: () => ({ status: 200, body: { advanced: store.advance() } }),
    },
    {
      method: 'POST',
      path: `${jobs}/{instanceNo}/advance`,
      handle: ({ params }) => advanceOne(store, params['instanceNo'] ?? ''),
    },
  ];
}

/** The web security scan job API. */
export function scanJobModule(options: ScanJobModuleOptions): ApiModule {
  const { store, authenticate } = options;
  return {
    name: 'scan-jobs',
    routes: apiRoutes(store, authenticate, options.maxLimit ?? DEFAULT_MAX_LIMIT).map((route) =>
      // A report as large as a test asks (core/answer-sizes.ts).
      options.sizes && route.path.endsWith('/report')
        ? sizedRoute(route, options.sizes, 'report', sizedJson)
        : route,
    ),
    controlRoutes: controlRoutes(store),
    reset: () => store.reset(),
  };
}
