/**
 * The rehearsal's Lambda-like host (scripts/rehearse/lambda-host.ts) against moto's Lambda: a
 * function's code and configuration as Lambda holds them, its role's credentials, one process per
 * function kept warm, Lambda's refusals (a callback handler, code that is not the function's) and
 * its timeout.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LambdaHost } from '../../scripts/rehearse/lambda-host.ts';
import { unique, useAwsEnv } from './moto.ts';

const run = promisify(execFile);
const REGION = 'us-east-1';

/** A handler module's text, zipped as the function's code. */
async function zipOf(dir: string, name: string, source: string): Promise<Buffer> {
  const folder = path.join(dir, name);
  await run('mkdir', ['-p', path.join(folder, 'functions')]);
  await writeFile(path.join(folder, 'functions', 'main.cjs'), source);
  await run('zip', ['-q', '-r', path.join(dir, `${name}.zip`), 'functions'], { cwd: folder });
  return readFile(path.join(dir, `${name}.zip`));
}

describe('the Lambda-like host (moto)', () => {
  let restore: () => void;
  let dir: string;
  let role: string;
  const code = new Map<string, Buffer>();
  let host: LambdaHost;
  const logs: string[] = [];

  async function deploy(source: string, options: { timeout?: number; handler?: string } = {}) {
    const name = unique('fn');
    const zip = await zipOf(dir, name, source);
    const lambda = new LambdaClient({ region: REGION });
    const created = await lambda.send(
      new CreateFunctionCommand({
        FunctionName: name,
        Runtime: 'nodejs24.x',
        Role: role,
        Handler: options.handler ?? 'functions/main.handler',
        Code: { ZipFile: zip },
        Timeout: options.timeout ?? 5,
        Environment: { Variables: { GREETING: 'hello' } },
      }),
    );
    lambda.destroy();
    code.set(created.FunctionArn!.split(':').at(-1)!, zip);
    return name;
  }

  beforeAll(async () => {
    restore = useAwsEnv();
    dir = await mkdtemp(path.join(tmpdir(), 'lambda-host-'));
    const iam = new IAMClient({ region: REGION });
    const created = await iam.send(
      new CreateRoleCommand({ RoleName: unique('role'), AssumeRolePolicyDocument: '{}' }),
    );
    iam.destroy();
    role = created.Role!.Arn!;
    host = new LambdaHost({
      region: REGION,
      endpoint: inject('motoEndpoint'),
      // moto names a location it does not serve: the bytes the test deployed, which the host
      // checks against the SHA-256 moto holds.
      codeAt: async (location) => {
        const fn = [...code.keys()].find((name) => location.includes(name));
        return code.get(fn ?? '') ?? Buffer.from('not the code');
      },
      nodePath: path.resolve(import.meta.dirname, '../../node_modules'),
      onLog: (fn, line) => logs.push(`${fn} ${line}`),
    });
  });
  afterAll(async () => {
    await host.close();
    restore();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the handler with the environment Lambda holds, its own variables and its role, warm after the first', async () => {
    const name = await deploy(`
      let calls = 0;
      exports.handler = async (event, context) => {
        calls++;
        console.log('ran ' + calls);
        return {
          event,
          calls,
          greeting: process.env.GREETING,
          name: process.env.AWS_LAMBDA_FUNCTION_NAME,
          endpoint: process.env.AWS_ENDPOINT_URL,
          session: Boolean(process.env.AWS_SESSION_TOKEN),
          handler: process.env._HANDLER,
          remaining: context.getRemainingTimeInMillis() > 0,
        };
      };`);
    const first = await host.invoke(name, { n: 1 });
    expect(first).toMatchObject({
      coldStart: true,
      result: {
        event: { n: 1 },
        calls: 1,
        greeting: 'hello',
        name,
        endpoint: inject('motoEndpoint'),
        session: true,
        handler: 'functions/main.handler',
        remaining: true,
      },
    });
    const second = await host.invoke(name, { n: 2 });
    expect(second).toMatchObject({ coldStart: false, result: { calls: 2 } });
    expect(host.loaded.get(name)).toMatchObject({
      handler: 'functions/main.handler',
      runtime: 'nodejs24.x',
    });
    // The function's output comes on its stdout, apart from its answer: it may arrive after it.
    await vi.waitFor(() => expect(logs).toContain(`${name} ran 2`));
  });

  it("answers a handler's error as Lambda does, and ends an invocation past the timeout", async () => {
    const failing = await deploy(`exports.handler = async () => { throw new TypeError('no'); };`);
    expect((await host.invoke(failing, {})).error).toEqual({
      errorType: 'TypeError',
      errorMessage: 'no',
    });
    const slow = await deploy(
      `exports.handler = () => new Promise((r) => setTimeout(() => r('late'), 5000));`,
      {
        timeout: 1,
      },
    );
    expect((await host.invoke(slow, {})).error).toEqual({
      errorType: 'Sandbox.Timedout',
      errorMessage: 'Task timed out after 1 seconds',
    });
  }, 20_000);

  it("refuses a callback handler, as Node.js 24 does, and code that is not the function's", async () => {
    const callback = await deploy(
      `exports.handler = (event, context, callback) => callback(null, 1);`,
    );
    await expect(host.invoke(callback, {})).rejects.toThrow('Runtime.CallbackHandlerDeprecated');
    const other = await deploy(`exports.handler = async () => 1;`);
    code.set(other, Buffer.from('other bytes'));
    await expect(host.invoke(other, {})).rejects.toThrow('is not the code Lambda holds');
  });
});
