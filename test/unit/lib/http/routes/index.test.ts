import { describe, expect, it } from 'vitest';
import { httpApiEvents } from '../../../../../lib/http/routes/index.js';

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
