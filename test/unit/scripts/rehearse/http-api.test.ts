/**
 * The HTTP API stand-in of the rehearsal (scripts/rehearse/http-api.ts): the deployed template's
 * routes, API Gateway's route selection, its payload 2.0 event and its reading of the answer.
 */
import { describe, expect, it } from 'vitest';
import {
  deployedRoutesIn,
  httpAnswerOf,
  httpApiEvent,
  selectRoute,
} from '../../../../scripts/rehearse/http-api.ts';

const ROUTES = [
  { routeKey: 'GET /jobs', functionName: 'list' },
  { routeKey: 'PATCH /jobs/{instanceId}/cancel', functionName: 'cancel' },
  { routeKey: 'POST /jobs/search', functionName: 'search' },
  { routeKey: 'ANY /actions/{name}', functionName: 'invoke' },
  { routeKey: 'GET /files/{path+}', functionName: 'files' },
  { routeKey: '$default', functionName: 'fallback' },
];

describe('deployedRoutesIn', () => {
  it("reads each route's integration and the function it calls from the template", () => {
    const resources = {
      HttpApiRouteGetJobs: {
        Type: 'AWS::ApiGatewayV2::Route',
        Properties: {
          RouteKey: 'GET /jobs',
          Target: { 'Fn::Join': ['/', ['integrations', { Ref: 'HttpApiIntegrationListJobs' }]] },
        },
      },
      HttpApiIntegrationListJobs: {
        Type: 'AWS::ApiGatewayV2::Integration',
        Properties: { IntegrationUri: { 'Fn::GetAtt': ['ListJobsLambdaFunction', 'Arn'] } },
      },
      ListJobsLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
    };
    expect(
      deployedRoutesIn(resources, (id) =>
        id === 'ListJobsLambdaFunction' ? 'gw-dev-listJobs' : undefined,
      ),
    ).toEqual([{ routeKey: 'GET /jobs', functionName: 'gw-dev-listJobs' }]);
  });
});

describe('selectRoute', () => {
  it('prefers the most literal path, an exact method over ANY, and falls back to $default', () => {
    expect(selectRoute(ROUTES, 'POST', '/jobs/search')?.route.functionName).toBe('search');
    expect(selectRoute(ROUTES, 'PATCH', '/jobs/2810017/cancel')).toEqual({
      route: ROUTES[1],
      pathParameters: { instanceId: '2810017' },
    });
    expect(selectRoute(ROUTES, 'DELETE', '/actions/hello')?.pathParameters).toEqual({
      name: 'hello',
    });
    expect(selectRoute(ROUTES, 'GET', '/files/a/b%20c.txt')?.pathParameters).toEqual({
      path: 'a/b c.txt',
    });
    // A known path with another method, and an unknown path: the $default route's function.
    expect(selectRoute(ROUTES, 'DELETE', '/jobs')?.route.functionName).toBe('fallback');
    expect(selectRoute(ROUTES, 'GET', '/jobs/2810017')?.route.functionName).toBe('fallback');
    expect(selectRoute(ROUTES.slice(0, 1), 'GET', '/nothing')).toBeUndefined();
  });
});

describe('httpApiEvent', () => {
  it('builds the payload 2.0 event: lower-case headers, cookies apart, query joined, text or base64 body', () => {
    const event = httpApiEvent({
      method: 'POST',
      url: '/actions/hello?a=1&a=2&b=x%20y',
      headers: { Host: 'api.example', 'Content-Type': 'application/json', cookie: 'a=1; b=2' },
      body: Buffer.from('{"n":1}'),
      routeKey: 'ANY /actions/{name}',
      pathParameters: { name: 'hello' },
    });
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'ANY /actions/{name}',
      rawPath: '/actions/hello',
      rawQueryString: 'a=1&a=2&b=x%20y',
      cookies: ['a=1', 'b=2'],
      headers: { host: 'api.example', 'content-type': 'application/json' },
      queryStringParameters: { a: '1,2', b: 'x y' },
      pathParameters: { name: 'hello' },
      body: '{"n":1}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/actions/hello' }, stage: '$default' },
    });
    expect(event.headers).not.toHaveProperty('cookie');
    const binary = httpApiEvent({
      method: 'POST',
      url: '/stt',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0, 1, 2]),
      routeKey: 'POST /stt',
    });
    expect(binary).toMatchObject({ body: 'AAEC', isBase64Encoded: true });
    expect(binary).not.toHaveProperty('queryStringParameters');
  });
});

describe('httpAnswerOf', () => {
  it('answers a structured result as it is, other JSON as 200, a failed invocation as 500', () => {
    expect(
      httpAnswerOf({
        result: {
          statusCode: 202,
          headers: { 'X-A': 'b' },
          body: 'aGk=',
          isBase64Encoded: true,
          cookies: ['c=1'],
        },
      }),
    ).toEqual({
      status: 202,
      headers: { 'x-a': 'b', 'set-cookie': ['c=1'] },
      body: Buffer.from('hi'),
    });
    expect(httpAnswerOf({ result: { baselined: 25 } })).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"baselined":25}'),
    });
    expect(httpAnswerOf({ error: { errorType: 'Error', errorMessage: 'boom' } }).status).toBe(500);
  });
});
