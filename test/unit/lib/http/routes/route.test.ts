import { describe, expect, it } from 'vitest';
import { WEB_ACTION_METHODS } from '../../../../../lib/execution/targets.ts';
import { ANY_METHODS } from '../../../../../lib/http/openapi.ts';
import { docsOf } from '../../../../../lib/http/routes/docs/index.ts';
import { routes } from '../../../../../lib/http/routes/index.ts';
import { defineRoute, needsCaller, routeKeyOf } from '../../../../../lib/http/routes/route.ts';

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

describe("a route's docs", () => {
  it('are kept by its id, and every route of the registry has them', () => {
    for (const route of routes) expect(docsOf(route).responses.length, route.id).toBeGreaterThan(0);
  });

  it('are missing, with the route named, for a route that has none', () => {
    expect(() => docsOf(defineRoute({ ...routes[0]!, id: 'undocumented' }))).toThrow(
      'Route undocumented has no docs (lib/http/routes/docs/)',
    );
  });
});
