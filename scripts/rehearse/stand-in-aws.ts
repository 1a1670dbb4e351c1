/**
 * A stand-in AWS on this machine: moto's server (`moto_server`, a maintained emulator of the AWS
 * APIs: CloudFormation, Lambda, IAM, STS, S3, SQS, DynamoDB, Secrets Manager, SNS, EventBridge,
 * ...) on a free loopback port, and in front of it the one call of this package's guide that
 * moto lacks: Lambda's GetAccountSettings (moto answers 404), answered from moto's own functions
 * and the account's concurrency limit (the limit moto itself holds reservations to, with
 * MOTO_LAMBDA_CONCURRENCY_QUOTA). Everything else goes to moto as it came.
 *
 * The AWS tier's tests (test/aws/setup.ts) start moto with `startMoto`; `npm run rehearse` and
 * the preflight's tests put the front before it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateAccessKeyCommand,
  CreateUserCommand,
  IAMClient,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import {
  GetFunctionConcurrencyCommand,
  LambdaClient,
  paginateListFunctions,
} from '@aws-sdk/client-lambda';
import { findFreePort } from '../local/ports.ts';

export interface Moto {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts `moto_server` on a free loopback port, in a folder of its own (cfn-lint, which moto's
 * CloudFormation validates templates with, may write there), with `env` added to this process's.
 */
export async function startMoto(env: Record<string, string> = {}): Promise<Moto> {
  const port = await findFreePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const cwd = await mkdtemp(path.join(tmpdir(), 'moto-'));
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'ENOENT'
            ? "moto_server is not installed: pip install 'moto[server]' (Python 3)"
            : `moto_server did not start: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`moto_server exited (${code}): ${stderr}`)));
  });
  const ready = (async () => {
    for (let i = 0; i < 150; i++) {
      try {
        const response = await fetch(`${endpoint}/moto-api/`);
        await response.body?.cancel();
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`moto_server did not answer on ${endpoint}: ${stderr}`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(cwd, { recursive: true, force: true });
    throw error;
  }
  failed.catch(() => {});
  return {
    endpoint,
    stop: async () => {
      child.removeAllListeners('exit');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      child.kill('SIGKILL');
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

/** The region a SigV4-signed request was signed for (its credential scope). */
function regionOfRequest(authorization: string | undefined): string {
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(authorization ?? '')?.[1] ?? 'us-east-1';
}

/** GetAccountSettings as Lambda answers it, from what moto holds in the region. */
async function accountSettings(
  moto: string,
  region: string,
  limit: number,
  credentials: AwsCredentials,
) {
  const client = new LambdaClient({ endpoint: moto, region, credentials });
  try {
    let reserved = 0;
    let codeSize = 0;
    let count = 0;
    for await (const page of paginateListFunctions({ client }, {})) {
      for (const fn of page.Functions ?? []) {
        count++;
        codeSize += fn.CodeSize ?? 0;
        const concurrency = await client.send(
          new GetFunctionConcurrencyCommand({ FunctionName: fn.FunctionName }),
        );
        reserved += concurrency.ReservedConcurrentExecutions ?? 0;
      }
    }
    return {
      AccountLimit: {
        TotalCodeSize: 80_530_636_800,
        CodeSizeUnzipped: 262_144_000,
        CodeSizeZipped: 52_428_800,
        ConcurrentExecutions: limit,
        UnreservedConcurrentExecutions: limit - reserved,
      },
      AccountUsage: { TotalCodeSize: codeSize, FunctionCount: count },
    };
  } finally {
    client.destroy();
  }
}

export interface StandInAws {
  /** Where the SDK and the CLI go: AWS_ENDPOINT_URL. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * A front on a free loopback port for `moto`: Lambda's GetAccountSettings answered for an
 * account of `concurrencyLimit` concurrent executions, everything else passed to moto.
 */
export async function startAccountSettingsFront(
  moto: string,
  concurrencyLimit: number,
  /** Who the front reads moto's functions as (where moto checks its callers). */
  credentials: AwsCredentials = { accessKeyId: 'stand-in', secretAccessKey: 'stand-in' },
): Promise<StandInAws> {
  const target = new URL(moto);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method === 'GET' && /^\/2016-08-19\/account-settings\/?$/.test(url.pathname)) {
      accountSettings(
        moto,
        regionOfRequest(req.headers.authorization),
        concurrencyLimit,
        credentials,
      ).then(
        (body) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        },
        (error: Error) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: error.message }));
        },
      );
      return;
    }
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      res.writeHead(502);
      res.end(error.message);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * Users of moto's IAM, each with an access key: `admin` may do anything (the rehearsal's own
 * calls: reading what the stand-in holds, running the functions), `deployer` what its policy (a
 * JSON document) allows. Then moto's IAM authorization is turned on: from the next request, every
 * call is checked against the caller's policies (its actions; moto checks a few resources only),
 * and a call by no known user is refused.
 */
export async function enforceIdentities(
  moto: string,
  region: string,
  deployerPolicy: string,
): Promise<{ admin: AwsCredentials; deployer: AwsCredentials }> {
  const iam = new IAMClient({
    endpoint: moto,
    region,
    credentials: { accessKeyId: 'stand-in', secretAccessKey: 'stand-in' },
  });
  const userWith = async (name: string, policy: string): Promise<AwsCredentials> => {
    await iam.send(new CreateUserCommand({ UserName: name }));
    await iam.send(
      new PutUserPolicyCommand({ UserName: name, PolicyName: name, PolicyDocument: policy }),
    );
    const key = await iam.send(new CreateAccessKeyCommand({ UserName: name }));
    return {
      accessKeyId: key.AccessKey?.AccessKeyId ?? '',
      secretAccessKey: key.AccessKey?.SecretAccessKey ?? '',
    };
  };
  try {
    const admin = await userWith(
      'rehearsal-admin',
      '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}',
    );
    const deployer = await userWith('deployer', deployerPolicy);
    const answer = await fetch(`${moto}/moto-api/reset-auth`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '0',
    });
    await answer.body?.cancel();
    if (!answer.ok)
      throw new Error(`moto refused to turn its IAM authorization on (${answer.status})`);
    return { admin, deployer };
  } finally {
    iam.destroy();
  }
}
