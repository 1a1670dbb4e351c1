/**
 * Invoking handlers as Lambda does: an API Gateway HTTP API (payload 2.0) event, from the
 * samples in events/, and a fresh context per invocation.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';

const EVENTS_DIR = path.resolve(import.meta.dirname, '../../events');

/** A sample event from events/, cloned so that a test may change it. */
export function sampleEvent<E = APIGatewayProxyEventV2>(file: string): E {
  return structuredClone(JSON.parse(readFileSync(path.join(EVENTS_DIR, file), 'utf8')));
}

export interface EventChanges {
  readonly method?: string;
  readonly path?: string;
  readonly query?: string;
  readonly pathParameters?: Record<string, string>;
  readonly headers?: Record<string, string | undefined>;
  readonly body?: string | undefined;
  readonly isBase64Encoded?: boolean;
  /** API Gateway's "METHOD /template" of the route (grouped functions dispatch on it). */
  readonly routeKey?: string;
}

/** A sample event with some parts changed (a header set to undefined is removed). */
export function httpEvent(file: string, changes: EventChanges = {}): APIGatewayProxyEventV2 {
  const event = sampleEvent(file);
  if (changes.method) event.requestContext.http.method = changes.method;
  if (changes.path) {
    event.rawPath = changes.path;
    event.requestContext.http.path = changes.path;
  }
  if (changes.query !== undefined) {
    event.rawQueryString = changes.query;
    event.queryStringParameters = Object.fromEntries(new URLSearchParams(changes.query));
  }
  if (changes.pathParameters) event.pathParameters = changes.pathParameters;
  for (const [name, value] of Object.entries(changes.headers ?? {})) {
    if (value === undefined) delete event.headers[name];
    else event.headers[name] = value;
  }
  if ('body' in changes) {
    if (changes.body === undefined) delete event.body;
    else event.body = changes.body;
  }
  if (changes.isBase64Encoded !== undefined) event.isBase64Encoded = changes.isBase64Encoded;
  if (changes.routeKey) event.routeKey = changes.routeKey;
  return event;
}

export function lambdaContext(remainingMs = 10_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'test-function',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test-function',
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/test-function',
    logStreamName: '2026/11/21/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** The parsed JSON body of a result (decoding base64 when the handler encoded it). */
export function jsonBody(result: APIGatewayProxyStructuredResultV2): unknown {
  const text = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64').toString('utf8')
    : (result.body ?? '');
  return JSON.parse(text);
}
