/**
 * Every HTTP route of the service, from the per-area registries (each function imports only its
 * own area, to keep its bundle small). The fallback function reads this list to tell an unknown
 * path (404) from a known path called with the wrong method (405 with `Allow`); the OpenAPI
 * document and serverless.yml's `httpApi` events are built from it.
 */
import { catalogue } from '../../catalogue/table.js';
import { routeOfEntry } from './catalogue.js';
import { functionRoutes } from './functions.js';
import { jobRoutes } from './jobs.js';
import type { Route } from './route.js';
import { serviceRoutes } from './service.js';

export const routes: readonly Route[] = [
  ...Object.values(serviceRoutes),
  ...Object.values(jobRoutes),
  ...Object.values(functionRoutes),
  ...catalogue.map(routeOfEntry),
] as Route[];

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

/** serverless.yml's `httpApi` events of every HTTP function, by function name. */
export function httpApiEvents(): Record<string, { httpApi: { method: string; path: string } }[]> {
  const events: Record<string, { httpApi: { method: string; path: string } }[]> = {};
  for (const route of routes) {
    const method = route.method === 'ANY' ? '*' : route.method;
    events[route.function] = [
      ...(events[route.function] ?? []),
      { httpApi: { method, path: route.path } },
    ];
  }
  return events;
}
