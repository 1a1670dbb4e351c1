/**
 * Every HTTP route of the service, in one table. `serverless.yml` declares the same routes
 * (a test keeps the two in step); the fallback function uses this table to tell an unknown
 * path (404) from a known path called with the wrong method (405 with `Allow`).
 */
export interface RouteDefinition {
  /** Function name in serverless.yml. */
  readonly function: string;
  /** HTTP method, or ANY. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';
  /** API Gateway path template, `{name}` for a path parameter. */
  readonly path: string;
  /** Whether the caller must present a bearer token (contract section 4). */
  readonly auth: boolean;
}

export const routes: readonly RouteDefinition[] = [
  { function: 'health', method: 'GET', path: '/health', auth: false },
  { function: 'listJobs', method: 'GET', path: '/jobs', auth: true },
  { function: 'searchJobs', method: 'POST', path: '/jobs/search', auth: true },
  { function: 'cancelReservedJobs', method: 'POST', path: '/jobs/cancel-reserved', auth: true },
  { function: 'cancelJob', method: 'PATCH', path: '/jobs/{instanceId}/cancel', auth: true },
  { function: 'stopJob', method: 'PATCH', path: '/jobs/{instanceId}/stop', auth: true },
  { function: 'getJobReport', method: 'GET', path: '/jobs/{instanceId}/report', auth: true },
];

/** The methods a path accepts, or undefined when no route has that path. */
export function allowedMethods(path: string): string[] | undefined {
  const methods = routes.filter((route) => templateMatches(route.path, path)).map((r) => r.method);
  return methods.length > 0 ? [...new Set(methods)] : undefined;
}

function templateMatches(template: string, path: string): boolean {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return false;
  return want.every((segment, i) => (segment.startsWith('{') ? got[i] !== '' : segment === got[i]));
}
