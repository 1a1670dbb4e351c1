import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../../lib/catalogue/table.ts';
import { fallbackRoute } from '../../../../../lib/http/routes/fallback.ts';
import { functionRoutes } from '../../../../../lib/http/routes/functions.ts';
import { allowedMethods, httpApiEvents, routes } from '../../../../../lib/http/routes/index.ts';
import { jobRoutes } from '../../../../../lib/http/routes/jobs.ts';
import { routeKeyOf } from '../../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../../lib/http/routes/service.ts';

describe('the route registry', () => {
  it("holds every area's routes, each once, and not the catch-all", () => {
    const keys = routes.map(routeKeyOf);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of [
      ...Object.values(serviceRoutes),
      ...Object.values(jobRoutes),
      ...Object.values(functionRoutes),
    ]) {
      expect(routes).toContain(route);
    }
    expect(routes.filter((route) => route.tag === 'catalogue')).toHaveLength(catalogue.length);
    expect(routes).not.toContain(fallbackRoute);
  });

  it('names each route once by its id', () => {
    const ids = routes.map((route) => route.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('allowedMethods', () => {
  it('gives the methods of a known path, parameters filled in', () => {
    expect(allowedMethods('/jobs')).toEqual(['GET']);
    expect(allowedMethods('/jobs/2810017/cancel')).toEqual(['PATCH']);
    expect(allowedMethods('/actions/hello')).toEqual(['ANY']);
    expect(allowedMethods('/health')).toEqual(['GET']);
  });

  it('gives every method of a path that several routes share', () => {
    const methods = allowedMethods('/shorturl');
    expect(methods?.sort()).toEqual(['GET', 'POST']);
  });

  it('knows no path that is not a route: another length, another segment, an empty parameter', () => {
    expect(allowedMethods('/nowhere')).toBeUndefined();
    expect(allowedMethods('/jobs/2810017')).toBeUndefined();
    expect(allowedMethods('/jobs/2810017/cancel/more')).toBeUndefined();
    expect(allowedMethods('/jobs//cancel')).toBeUndefined();
    expect(allowedMethods('/jobs/')).toBeUndefined();
  });
});

describe('httpApiEvents', () => {
  it("gives each function the httpApi events of its routes, ANY as '*'", () => {
    const events = httpApiEvents();
    expect(events.listJobs).toEqual([{ httpApi: { method: 'GET', path: '/jobs' } }]);
    expect(events.invokeAction).toEqual([{ httpApi: { method: '*', path: '/actions/{name}' } }]);
    const functions = new Set(routes.map((route) => route.function));
    expect(Object.keys(events).sort()).toEqual([...functions].sort());
    expect(Object.values(events).flat()).toHaveLength(routes.length);
  });

  it("puts every route with a caller behind the JWT authorizer, with its fixed scope among the token's", () => {
    const events = httpApiEvents({ jwt: true });
    expect(events.health?.[0]?.httpApi.authorizer).toBeUndefined();
    expect(events.receiveWebhook?.[0]?.httpApi.authorizer).toBeUndefined();
    // Any known caller: no scope to ask for.
    expect(events.usage?.[0]?.httpApi.authorizer).toEqual({ name: 'callerJwt' });
    // The reference is public unless the stage turns that off.
    expect(events.openapi?.[0]?.httpApi.authorizer).toBeUndefined();
    // A scope built from the path cannot be written in the template: the function checks it.
    expect(events.invokeAction?.[0]?.httpApi.authorizer).toEqual({ name: 'callerJwt' });
    expect(events.fireTrigger?.[0]?.httpApi.authorizer).toEqual({ name: 'callerJwt' });
    expect(events.listJobs?.[0]?.httpApi.authorizer?.scopes).toContain('jobs:read');
    const maps = events.catalogueMaps ?? [];
    expect(maps.length).toBeGreaterThan(0);
    for (const event of maps) {
      expect(event.httpApi.authorizer?.scopes).toEqual(
        expect.arrayContaining(['catalogue:maps', 'catalogue:*']),
      );
    }
  });
});

const scopesOf = (options: Parameters<typeof httpApiEvents>[0], fn: string) =>
  httpApiEvents(options)[fn]?.map((event) => event.httpApi.authorizer?.scopes);

describe("the JWT authorizer's scopes of each route", () => {
  it("never include * unless the stage allows a JWT's *", () => {
    expect(scopesOf({ jwt: true }, 'listJobs')).toEqual([['jobs:read']]);
    expect(scopesOf({ jwt: true }, 'cancelReservedJobs')).toEqual([['jobs:cancel-reserved']]);
    expect(scopesOf({ jwt: true, allowStarScope: true }, 'listJobs')).toEqual([['jobs:read', '*']]);
    const all = Object.values(httpApiEvents({ jwt: true })).flat();
    expect(all.some((event) => event.httpApi.authorizer?.scopes?.includes('*'))).toBe(false);
  });

  it('leave a scope built from the path to the function, and every route open without an issuer', () => {
    expect(httpApiEvents({ jwt: true }).invokeAction?.[0]?.httpApi.authorizer).toEqual({
      name: 'callerJwt',
    });
    const open = Object.values(httpApiEvents()).flat();
    expect(open.some((event) => event.httpApi.authorizer !== undefined)).toBe(false);
  });
});
