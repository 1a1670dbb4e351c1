/**
 * Section 1 of `npm run bench`, handler overhead: the packaged list-jobs bundle (what deploys)
 * invoked in process as Lambda invokes it, versus a bare undici GET of the same signed URL,
 * against a neutral upstream in its own process (or the emulator): ratio of medians at
 * concurrency 1, CPU per request of each side, and ratio of throughputs at concurrency 32. Log
 * lines go where Lambda's runtime sends them: one synchronous write per line to a file
 * descriptor (here /dev/null).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { findFreePort } from '../scripts/local/ports.ts';
import { type HttpHandler, lambdaContext, sampleEvent } from '../test/helpers/lambda.ts';
import { logLinesAsLambda, median, startNeutralUpstream, timeSequential } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface OverheadOptions {
  /** --pin: this process on core 0, the upstream on core 1. */
  readonly pin: boolean;
  /** --source: the TypeScript sources (Node strips their types) rather than the packaged bundle. */
  readonly fromSource: boolean;
  /** --upstream=emulator: against the emulator rather than the neutral upstream. */
  readonly useEmulator: boolean;
  /** The packaged bundle of one function (packaging first unless --skip-package). */
  readonly packagedEntry: (name: string) => string;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function startEmulatorProcess(port: number, pin: boolean): Promise<ChildProcess> {
  const [command, commandArgs] = pinned(pin, process.execPath, ['emulator/main.ts']);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, EMULATOR_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
  });
  // Drain per-request log lines so the pipe never blocks the emulator.
  child.stdout?.resume();
  return child;
}

async function throughput(
  run: () => Promise<void>,
  total: number,
  concurrency: number,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await run();
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

/** `--pin`: this process on core 0, the upstream on core 1, so neither waits for the other's core. */
function pinned(pin: boolean, command: string, commandArgs: string[]): [string, string[]] {
  return pin ? ['taskset', ['-c', '1', command, ...commandArgs]] : [command, commandArgs];
}

export async function benchOverhead(options: OverheadOptions): Promise<void> {
  const { pin, fromSource, useEmulator } = options;
  // Resolved (and packaged) before this process's environment is pointed at the upstream.
  const entry = fromSource ? undefined : options.packagedEntry('listJobs');
  if (pin)
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  // The neutral upstream by default: it does no work per request beyond the answer, so the
  // ratio measures the function; --upstream=emulator measures against the emulator instead.
  const port = useEmulator ? await findFreePort() : 0;
  const upstream = useEmulator
    ? await startEmulatorProcess(port, pin)
    : await startNeutralUpstream(pin);
  const upstreamPort = useEmulator ? port : (upstream as { port: number }).port;
  const emulator = useEmulator
    ? (upstream as ChildProcess)
    : (upstream as { child: ChildProcess }).child;
  try {
    const event = sampleEvent('jobs-list.json');
    const secret = JSON.parse(readFileSync(path.join(ROOT, 'emulator/demo-secret.json'), 'utf8'));
    Object.assign(process.env, {
      SCAN_BASE_URL: `http://127.0.0.1:${upstreamPort}`,
      SECRETS_SOURCE: 'file',
      SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
    });
    // The handler logs a JSON line or two per request: keep that cost as Lambda's Node.js runtime
    // makes it (its console.log formats the line, stamps it, and writes it synchronously to a file
    // descriptor: aws-lambda-nodejs-runtime-interface-client, LogPatch), to /dev/null.
    if (process.env.BENCH_LOG === 'none') console.log = () => {};
    else logLinesAsLambda(event.requestContext.requestId);
    const { handler } = (
      entry ? createRequire(import.meta.url)(entry) : await import('../functions/jobs/list.ts')
    ) as { handler: HttpHandler };

    // The bare request: the same signed URL, headers signed once (valid for minutes).
    const uri = '/api/v1/jobs?page=1&limit=10';
    const timestamp = String(Date.now());
    const signature = createHmac('sha256', secret.iam.secretKey)
      .update(`GET ${uri}\n${timestamp}\n${secret.iam.accessKey}`)
      .digest('base64');
    const headers = {
      'x-platform-apigw-timestamp': timestamp,
      'x-platform-iam-access-key': secret.iam.accessKey,
      'x-platform-apigw-signature-v2': signature,
      'x-platform-apigw-api-key': secret.apiKey,
      accept: 'application/json',
    };
    const agent = new Agent({ keepAliveTimeout: 4000, connections: 64 });
    const bare = async () => {
      const answer = await agent.request({
        origin: `http://127.0.0.1:${upstreamPort}`,
        path: uri,
        method: 'GET',
        headers,
      });
      await answer.body.arrayBuffer();
      if (answer.statusCode !== 200) throw new Error(`bare request answered ${answer.statusCode}`);
    };
    const viaHandler = async () => {
      const result = await handler(event, lambdaContext());
      if (result.statusCode !== 200)
        throw new Error(`handler answered ${result.statusCode}: ${result.body}`);
    };

    // Warm both paths (JIT, connections, secret cache), then interleave rounds.
    await timeSequential(bare, 300);
    await timeSequential(viaHandler, 300);
    const rounds = 7;
    const perRound = 600;
    const bareTimes: number[] = [];
    const handlerTimes: number[] = [];
    const bareCpu: number[] = [];
    const handlerCpu: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const bareSample = await timeSequential(bare, perRound);
      const handlerSample = await timeSequential(viaHandler, perRound);
      bareTimes.push(...bareSample.perRequestMs);
      handlerTimes.push(...handlerSample.perRequestMs);
      bareCpu.push(bareSample.cpuMicros);
      handlerCpu.push(handlerSample.cpuMicros);
    }
    const bareThroughput: number[] = [];
    const handlerThroughput: number[] = [];
    for (let round = 0; round < 3; round++) {
      bareThroughput.push(await throughput(bare, 3000, 32));
      handlerThroughput.push(await throughput(viaHandler, 3000, 32));
    }
    await agent.close();

    const c1Bare = median(bareTimes);
    const c1Handler = median(handlerTimes);
    const c32Bare = median(bareThroughput);
    const c32Handler = median(handlerThroughput);
    console.info(
      `\n1. Handler overhead (list-jobs ${fromSource ? 'from the TypeScript sources' : 'as packaged'}, in process, vs bare undici GET; upstream: ${useEmulator ? 'the emulator' : 'neutral'}, own process${pin ? '; pinned to cores 0 and 1' : ''})`,
    );
    console.info(
      `   Node ${process.version}, ${rounds * perRound} requests per side at c=1, 3 x 3000 at c=32`,
    );
    console.info(
      `   c=1  median: bare ${c1Bare.toFixed(3)} ms (p99 ${percentile(bareTimes, 99).toFixed(3)}), ` +
        `handler ${c1Handler.toFixed(3)} ms (p99 ${percentile(handlerTimes, 99).toFixed(3)}); ` +
        `ratio ${(c1Handler / c1Bare).toFixed(2)}x (+${((c1Handler - c1Bare) * 1000).toFixed(0)} µs)`,
    );
    console.info(
      `   c=1  CPU per request (this process, median of ${rounds} rounds): bare ${median(bareCpu).toFixed(0)} µs, ` +
        `handler ${median(handlerCpu).toFixed(0)} µs (+${(median(handlerCpu) - median(bareCpu)).toFixed(0)} µs)`,
    );
    console.info(
      `   c=32 throughput: bare ${c32Bare.toFixed(0)} req/s, handler ${c32Handler.toFixed(0)} req/s; ` +
        `ratio ${(c32Bare / c32Handler).toFixed(2)}x (bare / handler)`,
    );
  } finally {
    emulator.kill('SIGTERM');
    // The later sections (cold starts, first answers) run on every core again.
    if (pin) {
      const cores = `0-${availableParallelism() - 1}`;
      execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
    }
  }
}
