/**
 * `npm run bench`: run by hand, never in CI. Prints
 *  1. handler overhead: the packaged list-jobs bundle (what deploys) invoked in process as Lambda
 *     invokes it, versus a bare undici GET of the same signed URL, against a neutral upstream in
 *     its own process: ratio of medians at concurrency 1, CPU per request of each side, and ratio
 *     of throughputs at concurrency 32. Log lines go where Lambda's runtime sends them: one
 *     synchronous write per line to a file descriptor (here /dev/null);
 *  2. cold start: for every function's deployable bundle (from `serverless package`), its size
 *     and the time to import it in a fresh Node process (median of several runs);
 *  3. the upstream client's cost per request over a bare undici request (deadline, bounded read,
 *     retry decision, metric count), and how far past a deadline an answer comes;
 *  4. every function's first answer as deployed (bench/first-answer.ts).
 *
 * Options: --skip-package (reuse .serverless/), --only=overhead|cold|deadline|first-answer|scale
 * (scale, bench/scale.ts, only when named: it takes minutes),
 * --runs=N (cold imports, first answers),
 * --node=/path/to/node (cold imports under another Node, e.g. 22 as on Lambda; repeatable as
 * a comma-separated list), --upstream=neutral|emulator (handler overhead; neutral by default),
 * --pin (section 1: this process on core 0, the upstream on core 1), --source (section 1 on the TypeScript
 * sources through tsx rather than on the packaged bundle).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { findFreePort } from '../scripts/start.js';
import { type HttpHandler, lambdaContext, sampleEvent } from '../test/helpers/lambda.js';
import { benchFirstAnswer } from './first-answer.js';
import { logLinesAsLambda, median, startNeutralUpstream } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key = '', value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value] as const;
  }),
);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const freePort = findFreePort;

async function startEmulatorProcess(port: number): Promise<ChildProcess> {
  const [command, commandArgs] = pinned(path.join(ROOT, 'node_modules/.bin/tsx'), [
    'emulator/main.ts',
  ]);
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

// ---------------------------------------------------------------------------------------
// 1. Handler overhead

interface Sample {
  readonly perRequestMs: number[];
  /** This process's CPU time (every thread: user + system) per request, in µs. */
  readonly cpuMicros: number;
}

async function timeSequential(run: () => Promise<void>, count: number): Promise<Sample> {
  const perRequestMs: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run();
    perRequestMs.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { perRequestMs, cpuMicros: (cpu.user + cpu.system) / count };
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
function pinned(command: string, commandArgs: string[]): [string, string[]] {
  return args.get('pin') === 'true'
    ? ['taskset', ['-c', '1', command, ...commandArgs]]
    : [command, commandArgs];
}

async function benchOverhead(): Promise<void> {
  // Resolved (and packaged) before this process's environment is pointed at the upstream.
  const fromSource = args.get('source') === 'true';
  const entry = fromSource ? undefined : packagedEntry('listJobs');
  if (args.get('pin') === 'true')
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  // The neutral upstream by default: it does no work per request beyond the answer, so the
  // ratio measures the function; --upstream=emulator measures against the emulator instead.
  const useEmulator = args.get('upstream') === 'emulator';
  const port = useEmulator ? await freePort() : 0;
  const upstream = useEmulator
    ? await startEmulatorProcess(port)
    : await startNeutralUpstream(args.get('pin') === 'true');
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
      entry ? createRequire(import.meta.url)(entry) : await import('../functions/jobs/list.js')
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
      `\n1. Handler overhead (list-jobs ${fromSource ? 'from the TypeScript sources' : 'as packaged'}, in process, vs bare undici GET; upstream: ${useEmulator ? 'the emulator' : 'neutral'}, own process${args.get('pin') === 'true' ? '; pinned to cores 0 and 1' : ''})`,
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
    if (args.get('pin') === 'true') {
      const cores = `0-${availableParallelism() - 1}`;
      execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
    }
  }
}

// ---------------------------------------------------------------------------------------
// 2. Cold start

let packaged = false;

/** `serverless package`, once per run (unless --skip-package): the functions as they deploy. */
function packageArtifacts(): string {
  const out = path.join(ROOT, '.serverless');
  if (args.get('skip-package') !== 'true' && !packaged) {
    packaged = true;
    console.info('packaging (npx serverless package)...');
    execFileSync(path.join(ROOT, 'node_modules/.bin/serverless'), ['package'], {
      cwd: ROOT,
      stdio: 'ignore',
      // Packaging refuses a stage without its base URLs; the bundles do not depend on them.
      env: {
        SCAN_BASE_URL: 'https://wsc.apigw.example.com',
        OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
        ...process.env,
      },
    });
  }
  return out;
}

/**
 * Loads a bundle the way Lambda's Node.js runtime does (require() for .cjs, import() for
 * .mjs) in a fresh process, and returns how long that took.
 */
function importOnce(node: string, file: string): number {
  const load = file.endsWith('.cjs') ? 'require(process.argv[1])' : 'await import(process.argv[1])';
  const script = `const t = performance.now(); ${load}; process.stdout.write(String(performance.now() - t));`;
  const output = execFileSync(
    node,
    [...(file.endsWith('.cjs') ? [] : ['--input-type=module']), '-e', script, file],
    {
      env: {
        PATH: process.env.PATH,
        // The AWS SDK clients are not bundled: Lambda's runtime provides them on NODE_PATH.
        NODE_PATH: path.join(ROOT, 'node_modules'),
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
        NODE_OPTIONS: '--enable-source-maps',
      },
      encoding: 'utf8',
    },
  );
  return Number(output);
}

/** A packaged function's zip, unzipped into a fresh directory: its bundle's path. */
function unpackedEntry(out: string, name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  execFileSync('unzip', ['-q', '-o', path.join(out, `${name}.zip`), '-d', dir]);
  return execFileSync('find', [dir, '-name', '*.cjs'], { encoding: 'utf8' }).trim().split('\n')[0]!;
}

/** The packaged bundle of one function (packaging first unless --skip-package). */
function packagedEntry(name: string): string {
  return unpackedEntry(packageArtifacts(), name);
}

function benchColdStart(): void {
  const out = packageArtifacts();
  const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
  const runs = Number(args.get('runs') ?? 9);
  const bundles = zips.map((zip) => {
    const name = zip.replace(/\.zip$/, '');
    const entry = unpackedEntry(out, name);
    return {
      name,
      entry,
      zipBytes: statSync(path.join(out, zip)).size,
      bundleBytes: statSync(entry).size,
      times: [] as number[],
    };
  });
  const nodes = [process.execPath, ...(args.get('node')?.split(',') ?? [])];
  for (const node of nodes) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    for (const bundle of bundles) bundle.times = [];
    // Interleaved rounds so that machine noise spreads over every bundle alike.
    for (let round = 0; round < runs; round++) {
      for (const bundle of bundles) bundle.times.push(importOnce(node, bundle.entry));
    }
    console.info(
      `\n2. Cold start (Node ${version}; import of the packaged bundle in a fresh process, median of ${runs})`,
    );
    console.info('   function              bundle KB   zip KB   import ms (median)   min');
    for (const b of bundles.sort((x, y) => x.name.localeCompare(y.name))) {
      const sizes = `${kb(b.bundleBytes).padStart(9)}${kb(b.zipBytes).padStart(9)}`;
      const times = `${median(b.times).toFixed(1).padStart(21)}${Math.min(...b.times)
        .toFixed(1)
        .padStart(7)}`;
      console.info(`   ${b.name.padEnd(22)}${sizes}${times}`);
    }
  }
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

// ---------------------------------------------------------------------------------------
// 3. The deadline: its cost per request, and how far past it an answer comes

async function benchDeadline(): Promise<void> {
  const { UpstreamClient } = await import('../lib/upstream/client.js');
  const { flushMetrics } = await import('../lib/core/metrics.js');
  const { port, child } = await startNeutralUpstream(args.get('pin') === 'true');
  try {
    const agent = new Agent({ keepAliveTimeout: 4000, connections: 64 });
    const origin = `http://127.0.0.1:${port}`;
    const plain = async () => {
      const answer = await agent.request({ origin, path: '/x', method: 'GET' });
      await answer.body.arrayBuffer();
    };
    // The same request through the upstream client: its deadline (one native timer), the body
    // collected up to its limit, the retry decision and the metric count.
    const viaClient = new UpstreamClient({ dispatcher: agent, timeoutMs: 8000 });
    const target = new URL('/x', origin);
    const withClient = async () => {
      await viaClient.send({ method: 'GET', url: target, service: 'bench' });
    };
    await timeSequential(plain, 500);
    await timeSequential(withClient, 500);
    const plainTimes: number[] = [];
    const clientTimes: number[] = [];
    for (let round = 0; round < 7; round++) {
      plainTimes.push(...(await timeSequential(plain, 500)).perRequestMs);
      clientTimes.push(...(await timeSequential(withClient, 500)).perRequestMs);
      // Counted metrics are written by the function at the end of each invocation.
      flushMetrics('bench', () => {});
    }
    await agent.close();

    // Overshoot: an upstream that never answers, a 500 ms deadline, 20 calls.
    const silent = createHttpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const dispatcher = new Agent();
    const client = new UpstreamClient({ dispatcher, timeoutMs: 500 });
    const overshoot: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await client
        .send({ method: 'GET', url: new URL(`http://127.0.0.1:${silentPort}/never`) })
        .catch(() => undefined);
      overshoot.push(performance.now() - start - 500);
    }
    await dispatcher.destroy();
    silent.close();

    console.info(
      '\n3. The upstream client and its deadline (neutral loopback upstream in its own process)',
    );
    console.info(
      `   cost per request, c=1, 3500 requests each: bare undici request ${median(plainTimes).toFixed(3)} ms, ` +
        `through the client ${median(clientTimes).toFixed(3)} ms ` +
        `(+${((median(clientTimes) - median(plainTimes)) * 1000).toFixed(1)} µs)`,
    );
    console.info(
      `   overshoot past a 500 ms deadline, upstream silent, 20 calls: median ${median(overshoot).toFixed(1)} ms, ` +
        `max ${Math.max(...overshoot).toFixed(1)} ms`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

const only = args.get('only');
if (!only || only === 'overhead') await benchOverhead();
if (!only || only === 'cold') benchColdStart();
if (!only || only === 'deadline') await benchDeadline();
if (!only || only === 'first-answer') {
  // Packaged by the cold-start section when it ran; on its own, package now (or reuse).
  await benchFirstAnswer(
    only ? packageArtifacts() : path.join(ROOT, '.serverless'),
    Number(args.get('runs') ?? 5),
    args.get('node')?.split(',')[0],
  );
}
if (only === 'scale') await (await import('./scale.js')).benchScale(args);
process.exit(0);
