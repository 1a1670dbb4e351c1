import { CONTROL_PREFIX, ControlError, type ControlRoute } from '../core/control-api.js';
import type { GatewayRequest, GatewayResponse } from '../core/types.js';
import type { ApiModule, ApiRoute } from '../gateway/api-module.js';
import { endpointJson, mediaType } from '../gateway/envelope.js';
import type { Authenticator } from '../gateway/iam-auth.js';
import { DEFAULT_LIMIT, DEFAULT_PAGE, paginate, positiveIntParam } from './pagination.js';
import { buildReport } from './report.js';
import { apiCallFail, requestSuccess } from './responses.js';
import { matchesSearch, parseSearchBody } from './search.js';
import type { ScanJobStore, TransitionOutcome } from './store.js';

export const SCAN_JOB_PATH_PREFIX = '/api/v1';

export interface ScanJobModuleOptions {
  readonly store: ScanJobStore;
  /** Signature v2 authentication, checked before any of the routes' own validation. */
  readonly authenticate: Authenticator;
}

function listJobs(store: ScanJobStore, query: URLSearchParams): GatewayResponse {
  const page = positiveIntParam(query, 'page', DEFAULT_PAGE);
  const limit = positiveIntParam(query, 'limit', DEFAULT_LIMIT);
  if (page === undefined || limit === undefined) return apiCallFail();
  return endpointJson(200, paginate(store.list(), page, limit));
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

// The backend takes JSON only; like every other bad input, anything else is its 901.
function searchJobs(store: ScanJobStore, request: GatewayRequest): GatewayResponse {
  if (mediaType(request.headers['content-type']) !== 'application/json') return apiCallFail();
  const criteria = parseSearchBody(parseJson(request.body));
  if (!criteria) return apiCallFail();
  const found = store.list().filter((record) => matchesSearch(record, criteria));
  return endpointJson(200, paginate(found, criteria.page, criteria.limit));
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

function apiRoutes(store: ScanJobStore, authenticate: Authenticator): ApiRoute[] {
  const jobs = `${SCAN_JOB_PATH_PREFIX}/jobs`;
  return [
    {
      method: 'GET',
      path: jobs,
      authenticate,
      handle: ({ request }) => listJobs(store, request.query),
    },
    {
      method: 'POST',
      path: `${jobs}/search`,
      authenticate,
      handle: ({ request }) => searchJobs(store, request),
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
    routes: apiRoutes(store, authenticate),
    controlRoutes: controlRoutes(store),
    reset: () => store.reset(),
  };
}
