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
  /** Whether the caller must present a bearer token. */
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
  { function: 'invokeAction', method: 'ANY', path: '/actions/{name}', auth: true },
  { function: 'fireTrigger', method: 'POST', path: '/triggers/{name}', auth: true },
  // Authenticated by its Standard Webhooks signature instead of a caller token.
  { function: 'receiveWebhook', method: 'POST', path: '/webhooks/{name}', auth: false },
  // The open API catalogue (lib/catalogue/table.ts; a test keeps the two in step).
  { function: 'catalogueLanguage', method: 'POST', path: '/translate', auth: true },
  { function: 'catalogueLanguage', method: 'POST', path: '/tts', auth: true },
  { function: 'catalogueLanguage', method: 'POST', path: '/stt', auth: true },
  { function: 'catalogueMaps', method: 'GET', path: '/maps/static', auth: true },
  // API Gateway path parameters are whole segments: {tile} is "{y}@{scale}x.{format}".
  {
    function: 'catalogueMaps',
    method: 'GET',
    path: '/maps/tiles/{mapType}/{z}/{x}/{tile}',
    auth: true,
  },
  { function: 'catalogueMaps', method: 'GET', path: '/maps/directions', auth: true },
  { function: 'catalogueMaps', method: 'GET', path: '/maps/places', auth: true },
  { function: 'catalogueMaps', method: 'GET', path: '/maps/geocode', auth: true },
  { function: 'catalogueMaps', method: 'GET', path: '/maps/reverse-geocode', auth: true },
  { function: 'catalogueCaptcha', method: 'GET', path: '/captcha/image/key', auth: true },
  { function: 'catalogueCaptcha', method: 'GET', path: '/captcha/image', auth: true },
  { function: 'catalogueCaptcha', method: 'POST', path: '/captcha/image/verify', auth: true },
  { function: 'catalogueCaptcha', method: 'GET', path: '/captcha/audio/key', auth: true },
  { function: 'catalogueCaptcha', method: 'GET', path: '/captcha/audio', auth: true },
  { function: 'catalogueCaptcha', method: 'POST', path: '/captcha/audio/verify', auth: true },
  { function: 'catalogueUtility', method: 'GET', path: '/shorturl', auth: true },
  { function: 'catalogueUtility', method: 'POST', path: '/shorturl', auth: true },
  { function: 'catalogueUtility', method: 'POST', path: '/trends', auth: true },
  { function: 'openapi', method: 'GET', path: '/openapi.json', auth: true },
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
