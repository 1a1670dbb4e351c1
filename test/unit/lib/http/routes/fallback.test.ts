/**
 * The catch-all (lib/http/routes/fallback.ts): API Gateway's `$default` route, and what a
 * grouped function answers for a route key it does not serve.
 */
import { describe, expect, it } from 'vitest';
import { fallbackRoute, notServedRoute } from '../../../../../lib/http/routes/fallback.ts';
import { routes } from '../../../../../lib/http/routes/index.ts';

describe('the catch-all', () => {
  it('is any other method and path, public, and no route of the registry', () => {
    expect([fallbackRoute.method, fallbackRoute.path, fallbackRoute.access]).toEqual([
      'ANY',
      '/{proxy+}',
      'public',
    ]);
    expect(routes).not.toContain(fallbackRoute);
    expect(fallbackRoute.spends).toBeUndefined();
  });

  it("is what a grouped function answers for a route key it does not serve, under that function's name", () => {
    const route = notServedRoute('catalogueMaps');
    expect(route).toMatchObject({
      function: 'catalogueMaps',
      id: 'catalogueMapsNotServed',
      method: 'ANY',
      path: '/{proxy+}',
      access: 'public',
    });
    expect(routes.map((known) => known.id)).not.toContain(route.id);
  });
});
