import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { bind } from '../../../../lib/http/bind.ts';
import { json } from '../../../../lib/http/responses.ts';
import { routeGroup } from '../../../../lib/http/route-group.ts';
import { defineRoute } from '../../../../lib/http/routes/route.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';

const route = (method: 'GET' | 'POST', path: string, id: string) =>
  defineRoute({
    function: 'groupFunction',
    id,
    method,
    path,
    access: 'public',
    summary: id,
    tag: 'test',
  });

function group() {
  const lines: string[] = [];
  const log = createLogger({}, (line) => lines.push(line));
  const served = (method: 'GET' | 'POST', path: string, id: string) =>
    bind(route(method, path, id), async () => json(200, { served: id }), { log });
  const handler = routeGroup([
    served('GET', '/maps/static', 'static'),
    served('GET', '/maps/geocode', 'geocode'),
    served('POST', '/maps/geocode', 'geocodePost'),
  ]);
  return { handler, lines };
}

const eventFor = (routeKey: string) =>
  httpEvent('jobs-search.json', { routeKey, headers: { authorization: undefined } });

describe('routeGroup', () => {
  it('serves each request with the route API Gateway names in its route key, method included', async () => {
    const { handler } = group();
    for (const [routeKey, served] of [
      ['GET /maps/static', 'static'],
      ['GET /maps/geocode', 'geocode'],
      ['POST /maps/geocode', 'geocodePost'],
    ]) {
      expect(jsonBody(await handler(eventFor(routeKey!), lambdaContext()))).toEqual({ served });
    }
  });

  it('answers a route key it does not serve with the uniform 404/300, logged under its function', async () => {
    const { handler } = group();
    const lines = captureLogLines();
    const result = await handler(eventFor('GET /maps/elsewhere'), lambdaContext());
    vi.restoreAllMocks();
    expect(result.statusCode).toBe(404);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '300' } });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      function: 'groupFunction',
      message: 'request',
      status: 404,
    });
  });
});
