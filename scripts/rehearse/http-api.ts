/**
 * A stand-in of the stack's API Gateway HTTP API, which moto does not implement (its
 * CloudFormation records the routes and creates nothing): the routes as the deployed template
 * declares them (each AWS::ApiGatewayV2::Route, the integration it targets, the function that
 * integration calls), an HTTP server that selects a route as API Gateway does (the most specific
 * path, an exact method before ANY, `$default` last), hands the function a payload 2.0 event and
 * turns its answer into the HTTP response as API Gateway does (a structured answer as it is;
 * any other JSON as a 200 application/json body; a failed invocation as 500).
 *
 * Not rehearsed here (API Gateway's own work, which the stack only configures): the JWT
 * authorizer, route throttling, CORS preflights, the access log.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Invocation } from './lambda-host.ts';

export interface DeployedRoute {
  /** `GET /jobs/{instanceId}/report`, or `$default`. */
  readonly routeKey: string;
  /** The deployed function's name. */
  readonly functionName: string;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The logical ids a value references (Ref, Fn::GetAtt), in order. */
function referencesIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) referencesIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.push(inner);
      else if (key === 'Fn::GetAtt') {
        found.push(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0]!);
      } else referencesIn(inner, found);
    }
  }
  return found;
}

/**
 * The routes of a deployed template, each with the function its integration calls;
 * `functionNameOf` gives a function's deployed name from its logical id.
 */
export function deployedRoutesIn(
  resources: Resources,
  functionNameOf: (logicalId: string) => string | undefined,
): DeployedRoute[] {
  const routes: DeployedRoute[] = [];
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::ApiGatewayV2::Route') continue;
    const integration = referencesIn(resource.Properties?.Target).find(
      (id) => resources[id]?.Type === 'AWS::ApiGatewayV2::Integration',
    );
    const fn = referencesIn(resources[integration ?? '']?.Properties?.IntegrationUri).find(
      (id) => resources[id]?.Type === 'AWS::Lambda::Function',
    );
    const functionName = fn === undefined ? undefined : functionNameOf(fn);
    if (functionName) {
      routes.push({ routeKey: String(resource.Properties?.RouteKey), functionName });
    }
  }
  return routes;
}

/** The route API Gateway selects for a request, with its path parameters. */
export function selectRoute(
  routes: readonly DeployedRoute[],
  method: string,
  path: string,
): { route: DeployedRoute; pathParameters?: Record<string, string> } | undefined {
  const segments = path.split('/').slice(1);
  let best: { route: DeployedRoute; params: Record<string, string>; score: number } | undefined;
  for (const route of routes) {
    if (route.routeKey === '$default') continue;
    const [routeMethod, template] = route.routeKey.split(' ') as [string, string];
    if (routeMethod !== 'ANY' && routeMethod !== method) continue;
    const parts = template.split('/').slice(1);
    const params: Record<string, string> = {};
    let literal = 0;
    let matched = true;
    for (let i = 0; i < parts.length && matched; i++) {
      const part = parts[i]!;
      const greedy = /^\{(\w+)\+\}$/.exec(part);
      if (greedy && i === parts.length - 1) {
        const rest = segments.slice(i);
        matched = rest.length > 0 && rest.join('/') !== '';
        params[greedy[1]!] = decodeURIComponent(rest.join('/'));
        break;
      }
      const segment = segments[i];
      if (segment === undefined) matched = false;
      else if (/^\{\w+\}$/.test(part)) {
        if (segment === '') matched = false;
        else params[part.slice(1, -1)] = decodeURIComponent(segment);
      } else if (part === segment) literal++;
      else matched = false;
    }
    if (!matched) continue;
    if (!parts.at(-1)?.endsWith('+}') && parts.length !== segments.length) continue;
    // More literal segments first, then an exact method before ANY.
    const score = literal * 2 + (routeMethod === method ? 1 : 0);
    if (!best || score > best.score) best = { route, params, score };
  }
  if (best) {
    return Object.keys(best.params).length > 0
      ? { route: best.route, pathParameters: best.params }
      : { route: best.route };
  }
  const fallback = routes.find((route) => route.routeKey === '$default');
  return fallback ? { route: fallback } : undefined;
}

/** Bodies API Gateway hands a function as text; any other is base64. */
const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|[\w.+-]*\+(json|xml)))/i;

/** The payload 2.0 event of a request, as API Gateway builds it. */
export function httpApiEvent(request: {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly routeKey: string;
  readonly pathParameters?: Record<string, string> | undefined;
  readonly sourceIp?: string;
}): APIGatewayProxyEventV2 {
  const url = new URL(request.url, 'http://stand-in');
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    if (name.toLowerCase() === 'cookie') cookies = text.split(/;\s*/).filter(Boolean);
    else headers[name.toLowerCase()] = text;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = name in query ? `${query[name]},${value}` : value;
  }
  const now = new Date();
  const contentType = headers['content-type'] ?? '';
  const text = request.body.length === 0 || TEXT_TYPES.test(contentType);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'stand-in',
      domainName: headers.host ?? 'stand-in',
      domainPrefix: (headers.host ?? 'stand-in').split('.')[0]!,
      http: {
        method: request.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: request.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: !text,
  };
  if (cookies) event.cookies = cookies;
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (request.pathParameters) event.pathParameters = request.pathParameters;
  if (request.body.length > 0) {
    event.body = text ? request.body.toString('utf8') : request.body.toString('base64');
  }
  return event;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** The HTTP response API Gateway makes of a payload 2.0 invocation. */
export function httpAnswerOf(invocation: Pick<Invocation, 'result' | 'error'>): HttpAnswer {
  const json = { 'content-type': 'application/json' };
  if (invocation.error) {
    return { status: 500, headers: json, body: Buffer.from('{"message":"Internal Server Error"}') };
  }
  const result = invocation.result as Record<string, unknown> | null | undefined;
  if (result && typeof result === 'object' && typeof result.statusCode === 'number') {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries((result.headers ?? {}) as Record<string, unknown>)) {
      headers[name.toLowerCase()] = String(value);
    }
    if (Array.isArray(result.cookies) && result.cookies.length > 0) {
      headers['set-cookie'] = result.cookies.map(String);
    }
    const body = typeof result.body === 'string' ? result.body : '';
    return {
      status: result.statusCode,
      headers,
      body: Buffer.from(body, result.isBase64Encoded ? 'base64' : 'utf8'),
    };
  }
  return {
    status: 200,
    headers: json,
    body: Buffer.from(typeof result === 'string' ? result : JSON.stringify(result ?? null)),
  };
}

export interface HttpApi {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the routes `routes()` gives (read when the first request comes: the stack may not be
 * deployed before), invoking each route's function with `invoke`.
 */
export async function startHttpApi(
  routes: () => Promise<readonly DeployedRoute[]>,
  invoke: (functionName: string, event: APIGatewayProxyEventV2) => Promise<Invocation>,
): Promise<HttpApi> {
  let known: Promise<readonly DeployedRoute[]> | undefined;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    known ??= routes();
    known.catch(() => {
      known = undefined;
    });
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const selected = selectRoute(await known, req.method ?? 'GET', url.pathname);
    if (!selected) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not Found"}');
      return;
    }
    const event = httpApiEvent({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
      routeKey: selected.route.routeKey,
      pathParameters: selected.pathParameters,
    });
    const http = httpAnswerOf(await invoke(selected.route.functionName, event));
    res.writeHead(http.status, http.headers);
    res.end(http.body);
  };
  const server = createServer((req, res) => {
    answer(req, res).catch((error: Error) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `the stand-in failed: ${error.message}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
