/**
 * The default deploy's secret read: one GetSecretValue request signed with the function's own
 * credentials, against a loopback server that checks the signature as Secrets Manager does
 * (the headers the request says it signed, the date it carries, the role's secret key),
 * computed independently with the AWS SDK's own signer (@smithy/signature-v4).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { SecretReadError } from '../../../../lib/core/errors.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { getSecretValueSource } from '../../../../lib/secrets/get-secret-value.ts';
import { Sha256 } from '../../../../scripts/local/smithy-sha256.ts';

const CREDENTIALS = {
  accessKeyId: 'AKIDLOOPBACKTEST',
  secretAccessKey: 'loopback-role-secret-access-key',
  sessionToken: 'loopback-session-token',
};
const SECRET = JSON.stringify({ callerTokens: ['get-secret-value-test-token-0000000'] });

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly signatureValid: boolean;
  readonly fromSdk: boolean;
}

/** The signature the request should carry, over the headers it says it signed. */
async function expectedSignature(req: IncomingMessage, body: string): Promise<string | undefined> {
  const authorization = String(req.headers.authorization ?? '');
  const match =
    /Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})/.exec(
      authorization,
    );
  if (!match) return undefined;
  const [, accessKey, , region, service, signedHeaders] = match;
  if (accessKey !== CREDENTIALS.accessKeyId) return undefined;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(';')) headers[name] = String(req.headers[name] ?? '');
  const amzDate = String(req.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({
    service: service!,
    region: region!,
    credentials: CREDENTIALS,
    sha256: Sha256,
    applyChecksum: false,
  });
  const [hostname, port] = String(req.headers.host).split(':');
  const signed = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: hostname!,
      port: port ? Number(port) : undefined,
      path: req.url ?? '/',
      query: {},
      headers,
      body,
    },
    { signingDate },
  );
  return /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
}

let server: Server;
let endpoint: URL;
const received: Received[] = [];
/** How the stand-in answers each request (by index), after checking its signature. */
let script: (index: number, request: Received) => { status: number; body: unknown };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const presented = /Signature=([0-9a-f]{64})/.exec(String(req.headers.authorization))?.[1];
      const request: Received = {
        headers: req.headers,
        body,
        signatureValid:
          presented !== undefined && presented === (await expectedSignature(req, body)),
        fromSdk: String(req.headers['user-agent'] ?? '').includes('aws-sdk-js'),
      };
      received.push(request);
      const answer = request.signatureValid
        ? script(received.length - 1, request)
        : { status: 400, body: { __type: 'InvalidSignatureException', message: 'no' } };
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  received.length = 0;
  script = () => ({ status: 200, body: { Name: 'gw/dev', SecretString: SECRET } });
});

const dispatcher = new Agent();
const source = (secretId = 'gw/dev') =>
  getSecretValueSource({
    secretId,
    endpoint,
    region: 'eu-west-1',
    credentials: CREDENTIALS,
    dispatcher,
  });

describe('the signed GetSecretValue read', () => {
  it('reads the secret with one request that Secrets Manager would accept', async () => {
    await expect(source().fetchText()).resolves.toBe(SECRET);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.signatureValid).toBe(true);
    expect(request!.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    expect(request!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(request!.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(String(request!.headers.authorization)).toContain(
      '/eu-west-1/secretsmanager/aws4_request',
    );
    expect(JSON.parse(request!.body)).toEqual({ SecretId: 'gw/dev' });
  });

  it('is refused when signed with another key: the stand-in checks for real', async () => {
    const forged = getSecretValueSource({
      secretId: 'gw/dev',
      endpoint,
      region: 'eu-west-1',
      credentials: { ...CREDENTIALS, secretAccessKey: 'not-the-role-key' },
      dispatcher,
    });
    await expect(forged.fetchText()).rejects.toMatchObject({ type: 'InvalidSignatureException' });
    expect(received.map((r) => r.signatureValid)).toEqual([false]);
  });

  it('reads a binary secret', async () => {
    script = () => ({
      status: 200,
      body: { SecretBinary: Buffer.from(SECRET).toString('base64') },
    });
    await expect(source().fetchText()).resolves.toBe(SECRET);
  });

  it('reports a refusal by its exception name, at once, never a value', async () => {
    script = () => ({
      status: 400,
      body: {
        __type: 'com.amazonaws.secretsmanager#ResourceNotFoundException',
        message: 'not found',
      },
    });
    const failure = await source('missing')
      .fetchText()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SecretReadError);
    expect(failure).toMatchObject({
      type: 'ResourceNotFoundException',
      message: 'Secrets Manager answered 400 ResourceNotFoundException',
    });
    expect(received).toHaveLength(1);
  });

  it('tries a throttled read again, up to three times', async () => {
    script = (index) =>
      index < 2
        ? { status: 400, body: { __type: 'ThrottlingException', message: 'slow down' } }
        : { status: 200, body: { SecretString: SECRET } };
    await expect(source().fetchText()).resolves.toBe(SECRET);
    expect(received).toHaveLength(3);
    script = () => ({ status: 500, body: { __type: 'InternalServiceError' } });
    await expect(source().fetchText()).rejects.toMatchObject({ type: 'InternalServiceError' });
  });
});

describe('the default deploy: read, honouring the endpoint variables, and the SDK behind it', () => {
  const deployed = (extra: Record<string, string>) =>
    createRuntime(
      loadConfig({
        AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-listJobs',
        SECRET_ID: 'gw/dev',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
        SCAN_BASE_URL: 'https://wsc.apigw.example.com',
        OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
        ...extra,
      }),
      { log: createLogger({}, () => {}) },
    );

  /** The SDK reads its endpoint and credentials from the environment: set for `run` only. */
  async function withSdkEnvironment(run: () => Promise<void>): Promise<void> {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.href,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
    try {
      await run();
    } finally {
      process.env = saved;
    }
  }

  it.each([['AWS_ENDPOINT_URL_SECRETS_MANAGER'], ['AWS_ENDPOINT_URL']])(
    'reads the secret signed, at %s, with no SDK',
    async (variable) => {
      const runtime = deployed({ [variable]: endpoint.href });
      expect((await runtime.secretsFor('signing').get()).callerTokens).toEqual(
        JSON.parse(SECRET).callerTokens,
      );
      expect(received.map((r) => [r.signatureValid, r.fromSdk])).toEqual([[true, false]]);
    },
  );

  it('hands over to the SDK for good when the credentials are refused', async () => {
    // The stand-in refuses the first request's credentials, as for an expired session.
    script = (index) =>
      index === 0
        ? { status: 400, body: { __type: 'UnrecognizedClientException', message: 'no' } }
        : { status: 200, body: { SecretString: SECRET } };
    await withSdkEnvironment(async () => {
      const runtime = deployed({ AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.href });
      expect((await runtime.secretsFor('signing').get()).callerTokens).toEqual(
        JSON.parse(SECRET).callerTokens,
      );
      expect(received.map((r) => r.fromSdk)).toEqual([false, true]);
      expect(received.every((r) => r.signatureValid)).toBe(true);
    });
  });

  it('reads with the SDK when asked to, or when the credentials are not in the environment', async () => {
    await withSdkEnvironment(async () => {
      await deployed({ SECRETS_READER: 'sdk' }).secretsFor('signing').get();
      await deployed({ AWS_ACCESS_KEY_ID: '' }).secretsFor('signing').get();
      expect(received.map((r) => [r.signatureValid, r.fromSdk])).toEqual([
        [true, true],
        [true, true],
      ]);
    });
  });
});
