/**
 * A Lambda-like host for deployed functions: for each function, on its first invocation (a cold
 * start), its configuration and code as the account's Lambda holds them (GetFunction: handler,
 * runtime, timeout, memory, role, environment, and the code's location and SHA-256), the code
 * fetched and checked against that SHA-256, unzipped, and started in a process of its own
 * (scripts/rehearse/lambda-runtime.ts) with the environment Lambda gives a function: the
 * function's own variables, Lambda's (AWS_REGION, AWS_LAMBDA_FUNCTION_NAME, _HANDLER, ...), and
 * credentials of its role (STS AssumeRole). Warm invocations reuse the process, one at a time;
 * an invocation past the function's timeout ends the process, as Lambda ends the environment.
 *
 * What differs from Lambda: AWS_ENDPOINT_URL is set (the functions' AWS calls go to the
 * stand-in), and the AWS SDK is this project's (on NODE_PATH, as Lambda's runtime puts its own).
 * Node.js is the host's own (process.execPath): under npm, the project's Node 24, the major of the
 * functions' runtime (nodejs24.x).
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type FunctionConfiguration,
  GetFunctionCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';

const run = promisify(execFile);
const RUNTIME = path.join(import.meta.dirname, 'lambda-runtime.ts');

export interface LambdaError {
  readonly errorType: string;
  readonly errorMessage: string;
}

export interface Invocation {
  readonly result?: unknown;
  readonly error?: LambdaError;
  /** The invocation started the function's process (fetched, unzipped and loaded its code). */
  readonly coldStart: boolean;
  readonly ms: number;
}

/** A function as the host loaded it from the account's Lambda. */
export interface LoadedFunction {
  readonly name: string;
  readonly handler: string;
  readonly runtime: string;
  readonly codeBytes: number;
  /** CodeSha256 as Lambda holds it, which the fetched code matched. */
  readonly codeSha256: string;
  readonly environmentVariables: number;
  readonly role: string;
}

export interface LambdaHostOptions {
  readonly region: string;
  /** AWS_ENDPOINT_URL of the functions and of the host's own calls. */
  readonly endpoint: string;
  /** The bytes at the code location GetFunction gives (an S3 URL). */
  readonly codeAt: (location: string) => Promise<Buffer>;
  /** Where the functions find the AWS SDK (Lambda's runtime provides it; the bundles leave it out). */
  readonly nodePath: string;
  /** Each line a function writes (its log). */
  readonly onLog?: (fn: string, line: string) => void;
}

interface Container {
  readonly child: ChildProcess;
  readonly config: FunctionConfiguration;
  readonly dir: string;
  readonly pending: Map<number, (message: { result?: unknown; error?: LambdaError }) => void>;
  next: number;
  /** The last invocation: the next waits for it (one request at a time). */
  queue: Promise<unknown>;
}

/** The process's lines, given one by one. */
function linesOf(stream: NodeJS.ReadableStream | null, each: (line: string) => void): void {
  let rest = '';
  stream?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) each(line);
  });
  stream?.on('end', () => {
    if (rest.trim()) each(rest);
  });
}

export class LambdaHost {
  private readonly containers = new Map<string, Promise<Container>>();
  readonly loaded = new Map<string, LoadedFunction>();
  private readonly lambda: LambdaClient;
  private readonly sts: STSClient;

  private readonly options: LambdaHostOptions;

  constructor(options: LambdaHostOptions) {
    this.options = options;
    this.lambda = new LambdaClient({ region: options.region, endpoint: options.endpoint });
    this.sts = new STSClient({ region: options.region, endpoint: options.endpoint });
  }

  /** Invokes the function (by name) with the event, as Lambda's synchronous Invoke. */
  async invoke(name: string, event: unknown): Promise<Invocation> {
    const started = performance.now();
    const cold = !this.containers.has(name);
    if (cold) {
      const starting = this.start(name);
      starting.catch(() => this.containers.delete(name));
      this.containers.set(name, starting);
    }
    const container = await this.containers.get(name)!;
    const answer = container.queue.then(() => this.send(name, container, event));
    container.queue = answer.catch(() => {});
    const message = await answer;
    return { ...message, coldStart: cold, ms: Math.round(performance.now() - started) };
  }

  private send(
    name: string,
    container: Container,
    event: unknown,
  ): Promise<{ result?: unknown; error?: LambdaError }> {
    const timeoutMs = (container.config.Timeout ?? 3) * 1000;
    const id = container.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        container.pending.delete(id);
        this.stop(name, container);
        resolve({
          error: {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${timeoutMs / 1000} seconds`,
          },
        });
      }, timeoutMs);
      container.pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      container.child.send({
        id,
        event,
        deadline: Date.now() + timeoutMs,
        requestId: randomUUID(),
      });
    });
  }

  /** A cold start: configuration, code, role, process. */
  private async start(name: string): Promise<Container> {
    const fn = await this.lambda.send(new GetFunctionCommand({ FunctionName: name }));
    const config = fn.Configuration ?? {};
    const location = fn.Code?.Location;
    if (!location) throw new Error(`${name}: Lambda gives no code location`);
    const zip = await this.options.codeAt(location);
    const sha256 = createHash('sha256').update(zip).digest('base64');
    if (sha256 !== config.CodeSha256) {
      throw new Error(
        `${name}: the code fetched (SHA-256 ${sha256}) is not the code Lambda holds (${config.CodeSha256})`,
      );
    }
    const dir = await mkdtemp(path.join(tmpdir(), `lambda-${name}-`));
    const task = path.join(dir, 'task');
    await writeFile(path.join(dir, 'code.zip'), zip);
    await run('unzip', ['-q', path.join(dir, 'code.zip'), '-d', task]);
    const role = await this.sts.send(
      new AssumeRoleCommand({ RoleArn: config.Role, RoleSessionName: name.slice(0, 64) }),
    );
    const variables = config.Environment?.Variables ?? {};
    const runtime = config.Runtime ?? '';
    const env: NodeJS.ProcessEnv = {
      ...variables,
      // Lambda's own, which a function's variables cannot override.
      AWS_REGION: this.options.region,
      AWS_DEFAULT_REGION: this.options.region,
      AWS_ACCESS_KEY_ID: role.Credentials?.AccessKeyId,
      AWS_SECRET_ACCESS_KEY: role.Credentials?.SecretAccessKey,
      AWS_SESSION_TOKEN: role.Credentials?.SessionToken,
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.MemorySize ?? 128),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
      AWS_LAMBDA_LOG_STREAM_NAME: `rehearsal/[$LATEST]${randomUUID().replaceAll('-', '')}`,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_EXECUTION_ENV: `AWS_Lambda_${runtime}`,
      LAMBDA_TASK_ROOT: task,
      LAMBDA_RUNTIME_DIR: path.dirname(RUNTIME),
      LAMBDA_FUNCTION_ARN: config.FunctionArn,
      _HANDLER: config.Handler,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: process.env.PATH,
      NODE_PATH: this.options.nodePath,
      // The one difference: the functions' AWS calls go to the stand-in.
      AWS_ENDPOINT_URL: this.options.endpoint,
    };
    const child = fork(RUNTIME, [], {
      cwd: task,
      env,
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const log = (line: string) => this.options.onLog?.(name, line);
    linesOf(child.stdout, log);
    linesOf(child.stderr, log);
    const container: Container = {
      child,
      config,
      dir,
      pending: new Map(),
      next: 1,
      queue: Promise.resolve(),
    };
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message: Record<string, unknown>) => {
        if (message.ready) resolve();
        else if (message.initError) {
          const error = message.initError as LambdaError;
          reject(new Error(`${name}: init failed: ${error.errorType}: ${error.errorMessage}`));
        } else {
          container.pending.get(message.id as number)?.(
            message as { result?: unknown; error?: LambdaError },
          );
          container.pending.delete(message.id as number);
        }
      });
      child.once('exit', (code) => reject(new Error(`${name}: the process exited (${code})`)));
    }).catch(async (error: unknown) => {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw error;
    });
    // A process that ends (a crash) fails what it was running, and the next invocation starts anew.
    child.once('exit', () => {
      if (this.containers.get(name) === undefined) return;
      for (const resolve of container.pending.values()) {
        resolve({ error: { errorType: 'Runtime.ExitError', errorMessage: `${name} exited` } });
      }
      container.pending.clear();
      this.containers.delete(name);
    });
    this.loaded.set(name, {
      name,
      handler: config.Handler ?? '',
      runtime,
      codeBytes: zip.length,
      codeSha256: sha256,
      environmentVariables: Object.keys(variables).length,
      role: config.Role ?? '',
    });
    return container;
  }

  private stop(name: string, container: Container): void {
    this.containers.delete(name);
    container.child.kill('SIGKILL');
    rm(container.dir, { recursive: true, force: true }).catch(() => {});
  }

  /** Ends every process and removes the code. */
  async close(): Promise<void> {
    const containers = await Promise.allSettled([...this.containers.values()]);
    this.containers.clear();
    for (const each of containers) {
      if (each.status !== 'fulfilled') continue;
      const exited = new Promise((resolve) => each.value.child.once('exit', resolve));
      each.value.child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      each.value.child.kill('SIGKILL');
      await rm(each.value.dir, { recursive: true, force: true });
    }
    this.lambda.destroy();
    this.sts.destroy();
  }
}
