import { describe, expect, it } from 'vitest';
import { WEB_ACTION_METHODS } from '../../../../../lib/execution/targets.ts';
import { routes } from '../../../../../lib/http/routes/index.ts';
import {
  ANY_METHODS,
  defineRoute,
  docsOf,
  document,
  needsCaller,
  routeKeyOf,
} from '../../../../../lib/http/routes/route.ts';

describe('a route of the registry', () => {
  it("is known by API Gateway's route key: method and path template", () => {
    expect(routeKeyOf({ method: 'GET', path: '/jobs' })).toBe('GET /jobs');
    expect(routeKeyOf({ method: 'ANY', path: '/actions/{name}' })).toBe('ANY /actions/{name}');
  });

  it('needs a caller unless it is public', () => {
    expect(needsCaller({ access: 'public' })).toBe(false);
    expect(needsCaller({ access: 'caller' })).toBe(true);
    expect(needsCaller({ access: { scope: 'jobs:read' } })).toBe(true);
    expect(needsCaller({ access: { scope: 'actions:{name}' } })).toBe(true);
  });

  it('is declared once, as data: defineRoute keeps it as written', () => {
    const declared = {
      function: 'f',
      id: 'f',
      method: 'GET' as const,
      path: '/f',
      access: 'public' as const,
      summary: 'f',
      tag: 't',
      responses: [],
    };
    expect(defineRoute(declared)).toBe(declared);
  });

  it("accepts on an ANY route a web action's methods", () => {
    expect(ANY_METHODS).toBe(WEB_ACTION_METHODS);
  });
});

describe("a route's documentation", () => {
  it('is what its module attached, and every route of the registry has it', () => {
    for (const route of routes) expect(docsOf(route).responses.length, route.id).toBeGreaterThan(0);
    const route = defineRoute({ ...routes[0]!, id: 'documentedHere' });
    document(route, { description: 'd', responses: [] });
    expect(docsOf(route)).toEqual({ description: 'd', responses: [] });
  });

  it('is missing, with the route named, where no ROUTE_DOCS statement ran (a bundle)', () => {
    expect(() => docsOf(defineRoute({ ...routes[0]!, id: 'undocumented' }))).toThrow(
      'Route undocumented has no documentation (ROUTE_DOCS)',
    );
  });
});
