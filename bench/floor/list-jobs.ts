/**
 * The floor of the benchmark: GET /jobs written by hand, with no framework, keeping the same
 * promises as the packaged function: the caller's token checked in constant time against the
 * secret's callers, its end (`notAfter`) and its scopes (`jobs:read` or `*`), page and limit
 * integers (anything else a 400 envelope), a signed call (signature v2) under a deadline, one
 * JSON log line per request naming the caller and carrying its metrics (EMF: CallerRequests
 * and UpstreamCalls), the secret read once per container with one signed GetSecretValue
 * request (or from a file). The transport is the one thing the two variants (fetch.ts,
 * undici.ts) change.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import aws4 from 'aws4';

/** One HTTP exchange: what each variant implements with its transport. */
export type Send = (request: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}) => Promise<{ status: number; body: string; contentType: string }>;

interface Secret {
  iam: { accessKey: string; secretKey: string };
  apiKey?: string;
  callerTokens?: string[];
  callers?: {
    id: string;
    token?: string;
    tokenSha256?: string;
    scopes: string[];
    notAfter?: string;
  }[];
}

interface Caller {
  id: string;
  scopes: string[];
  notAfter: number;
}

interface Event {
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  requestContext?: { requestId?: string };
}

interface Context {
  awsRequestId: string;
  getRemainingTimeInMillis(): number;
}

const envelope = (status: number, code: string, message: string) => ({
  statusCode: status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { errorCode: code, message } }),
});

async function readSecret(send: Send): Promise<Secret> {
  const env = process.env;
  if (env.SECRETS_FILE) return JSON.parse(readFileSync(env.SECRETS_FILE, 'utf8')) as Secret;
  const endpoint = new URL(
    env.AWS_ENDPOINT_URL_SECRETS_MANAGER ??
      `https://secretsmanager.${env.AWS_REGION}.amazonaws.com`,
  );
  const body = JSON.stringify({ SecretId: env.SECRET_ID });
  const signed = aws4.sign(
    {
      host: endpoint.host,
      path: '/',
      method: 'POST',
      service: 'secretsmanager',
      region: env.AWS_REGION,
      body,
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
      },
    },
    {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN,
    },
  );
  const answer = await send({
    url: endpoint.href,
    method: 'POST',
    headers: signed.headers as Record<string, string>,
    body,
    timeoutMs: 3000,
  });
  if (answer.status !== 200) throw new Error(`Secrets Manager answered ${answer.status}`);
  return JSON.parse((JSON.parse(answer.body) as { SecretString: string }).SecretString) as Secret;
}

const sha256 = (value: string) => hash('sha256', value, 'buffer');
const INTEGER = /^[1-9][0-9]{0,8}$/;
const ROUTE = 'GET /jobs';

export function listJobsHandler(send: Send) {
  const base = process.env.SCAN_BASE_URL ?? '';
  const secret = readSecret(send);
  const callers = secret.then((s) =>
    [
      ...(s.callerTokens ?? []).map((token, index) => ({
        token,
        tokenSha256: undefined as string | undefined,
        id: `callerTokens.${index}`,
        scopes: ['*'],
        notAfter: undefined as string | undefined,
      })),
      ...(s.callers ?? []),
    ].map((c) => ({
      digest: c.tokenSha256 ? Buffer.from(c.tokenSha256, 'hex') : sha256(c.token ?? ''),
      caller: {
        id: c.id,
        scopes: c.scopes,
        notAfter: c.notAfter ? Date.parse(c.notAfter) : Number.POSITIVE_INFINITY,
      } satisfies Caller,
    })),
  );
  secret.catch(() => {});
  return async (event: Event, context: Context) => {
    const started = performance.now();
    const requestId = context.awsRequestId;
    let caller: Caller | undefined;
    const log = (status: number, outcome: string) =>
      console.log(
        JSON.stringify({
          level: status >= 500 ? 'error' : 'info',
          message: 'request',
          function: 'listJobs',
          requestId,
          caller: caller?.id,
          route: ROUTE,
          status,
          durationMs: Math.round(performance.now() - started),
          _aws: {
            Timestamp: Date.now(),
            CloudWatchMetrics: [
              {
                Namespace: 'PlatformGateway',
                Dimensions: [['Function', 'Caller', 'Route']],
                Metrics: [{ Name: 'CallerRequests', Unit: 'Count' }],
              },
              {
                Namespace: 'PlatformGateway',
                Dimensions: [['Function', 'Service', 'Outcome']],
                Metrics: [{ Name: 'UpstreamCalls', Unit: 'Count' }],
              },
            ],
          },
          Function: 'listJobs',
          Caller: caller?.id,
          Route: ROUTE,
          CallerRequests: 1,
          Service: 'scan-jobs',
          Outcome: outcome,
          UpstreamCalls: 1,
        }),
      );
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(event.headers?.authorization ?? '')?.[1];
    const digest = sha256(presented ?? '');
    for (const known of await callers) {
      if (timingSafeEqual(digest, known.digest)) caller = known.caller;
    }
    if (!presented || !caller || Date.now() >= caller.notAfter) {
      return envelope(401, '200', 'Authentication Failed');
    }
    if (!caller.scopes.includes('*') && !caller.scopes.includes('jobs:read')) {
      return envelope(403, '210', 'Permission Denied');
    }
    const query = new URLSearchParams(event.rawQueryString ?? '');
    for (const key of query.keys()) {
      if (key !== 'page' && key !== 'limit') return envelope(400, '100', 'Bad Request Exception');
    }
    const page = query.get('page') ?? '1';
    const limit = query.get('limit') ?? '10';
    if (!INTEGER.test(page) || !INTEGER.test(limit)) {
      return envelope(400, '100', 'Bad Request Exception');
    }
    const { iam, apiKey } = await secret;
    const uri = `/api/v1/jobs?page=${page}&limit=${limit}`;
    const timestamp = String(Date.now());
    const headers: Record<string, string> = {
      'x-platform-apigw-timestamp': timestamp,
      'x-platform-iam-access-key': iam.accessKey,
      'x-platform-apigw-signature-v2': createHmac('sha256', iam.secretKey)
        .update(`GET ${uri}\n${timestamp}\n${iam.accessKey}`)
        .digest('base64'),
      accept: 'application/json',
    };
    if (apiKey) headers['x-platform-apigw-api-key'] = apiKey;
    try {
      const answer = await send({
        url: base + uri,
        method: 'GET',
        headers,
        timeoutMs: Math.min(8000, context.getRemainingTimeInMillis() - 250),
      });
      log(answer.status, answer.status < 400 ? 'success' : 'error');
      return {
        statusCode: answer.status < 400 ? 200 : answer.status,
        headers: { 'content-type': answer.contentType },
        body: answer.body,
      };
    } catch {
      log(504, 'timeout');
      return envelope(504, '510', 'Endpoint Timeout');
    }
  };
}
