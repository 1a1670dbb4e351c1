/**
 * A loopback server that speaks Secrets Manager's GetSecretValue (AWS JSON 1.1 protocol), so
 * that the real SDK client can be exercised without AWS.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedSecretsCall {
  target: string | undefined;
  authorization: string | undefined;
  body: { SecretId?: string };
}

export interface SecretsManagerServer {
  readonly endpoint: string;
  readonly calls: RecordedSecretsCall[];
  /** The SecretString served for a secret id; absent ids answer ResourceNotFoundException. */
  readonly secrets: Map<string, string>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSecretsManagerServer(): Promise<SecretsManagerServer> {
  const calls: RecordedSecretsCall[] = [];
  const secrets = new Map<string, string>();
  const server = createServer(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { SecretId?: string };
    const target = req.headers['x-amz-target'] as string | undefined;
    calls.push({ target, authorization: req.headers.authorization, body });
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    if (target !== 'secretsmanager.GetSecretValue') {
      reply(400, { __type: 'UnknownOperationException', message: 'unknown operation' });
      return;
    }
    const value = body.SecretId === undefined ? undefined : secrets.get(body.SecretId);
    if (value === undefined) {
      reply(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    reply(200, {
      ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${body.SecretId}-AbCdEf`,
      Name: body.SecretId,
      SecretString: value,
      VersionId: `v${calls.length}`,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    secrets,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
