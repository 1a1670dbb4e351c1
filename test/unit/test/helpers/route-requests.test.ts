/**
 * The requests the caller and fuzz tests send (test/helpers/route-requests.ts): one that each
 * route of the registry accepts, and the module of every HTTP function.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../../../lib/http/routes/index.ts';
import { routeKeyOf } from '../../../../lib/http/routes/route.ts';
import { FUNCTIONS } from '../../../../sls/functions.ts';
import { MODULES, VALID, validEvent } from '../../../helpers/route-requests.ts';

describe('the requests each route accepts', () => {
  it('hold one for every route of the registry, and none for a route that is not there', () => {
    const keys = routes.map(routeKeyOf);
    expect(keys.filter((key) => !(key in VALID))).toEqual([]);
    expect(Object.keys(VALID).filter((key) => !keys.includes(key))).toEqual([]);
  });

  it('load every HTTP function by its module', () => {
    const http = Object.values(FUNCTIONS).filter((fn) => fn.routes.length > 0);
    expect(Object.keys(MODULES).sort()).toEqual(http.map((fn) => fn.name).sort());
  });

  it('make the event API Gateway hands a function: its route key, path and body', () => {
    const route = routes.find((each) => routeKeyOf(each) === 'POST /triggers/{name}')!;
    const event = validEvent(route, 'Bearer t');
    expect(event).toMatchObject({
      routeKey: 'POST /triggers/{name}',
      rawPath: '/triggers/nightly',
      pathParameters: { name: 'nightly' },
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"n":1}',
    });
  });
});
