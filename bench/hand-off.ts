/**
 * `npm run bench -- --only=hand-off`: answers too large for a Lambda response, handed off by the
 * packaged report function (its bundle required as Lambda requires a `.cjs` handler, the upload
 * loaded from its file beside the bundle), in a fresh Node process per run. The emulator answers
 * a report of 20 MB or 90 MB and the hand-off bucket's loopback stand-in stores it (both in this
 * process, so that the function's process holds only the function). For each size:
 *   - the function's peak memory (the process's peak resident set, VmHWM of /proc/self/status),
 *     and its resident set after a small report, before the large one;
 *   - the time to the 303's first byte: from the invocation to the handler's answer (the 303 is
 *     the whole response, and Lambda sends nothing before the handler answers).
 * The function runs with the flags Lambda's Node.js runtime gives a function of 256 MB (this
 * stack's): `--expose-gc --max-semi-space-size=12 --max-old-space-size=231`.
 * Options: --runs=N (5), --sizes=20,90 (MB), --node=/path/to/node (another Node, e.g. 24 as on
 * Lambda).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoSecretFor, startEmulator } from '../emulator/index.ts';
import { startLocalHandOff } from '../scripts/local/s3-stand-in.ts';
import type { BenchOptions } from './args.ts';
import { median } from './harness.ts';
import { packageArtifacts, unpackedEntry } from './packaged.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const MB = 1024 * 1024;
const AWS = {
  AWS_ACCESS_KEY_ID: 'AKIDHANDOFFBENCH',
  AWS_SECRET_ACCESS_KEY: 'hand-off-bench-secret',
  AWS_REGION: 'us-east-1',
};

/**
 * The function's process: requires the bundle, answers a small report (its init done, its
 * connections open), says so, waits for the go, answers the large one; prints what it measured.
 */
const RUNTIME = `
const handler = require(process.argv[1]).handler;
// The peak resident set of this process (VmHWM: reset by exec, where getrusage's maxRSS keeps the
// parent's high-water mark from before the fork), and the resident set now, in MB.
const status = (field) =>
  Number(/\\d+/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8').split(field + ':')[1])[0]) / 1024;
const event = JSON.parse(process.argv[2]);
const context = () => {
  const deadline = Date.now() + 60000;
  return { awsRequestId: 'bench-' + Date.now(), getRemainingTimeInMillis: () => deadline - Date.now() };
};
const out = (line) => process.stdout.write('\\n' + line + '\\n');
(async () => {
  const small = await handler(event, context());
  if (small.statusCode !== 200) throw new Error('small report: ' + small.statusCode);
  globalThis.gc?.();
  const before = { rssMB: status('VmRSS'), maxRssMB: status('VmHWM') };
  out('@ready');
  process.stdin.once('data', async () => {
    const started = performance.now();
    const large = await handler(event, context());
    const ms = performance.now() - started;
    out('@result ' + JSON.stringify({
      status: large.statusCode,
      bytes: Number(large.headers && large.headers['answer-length']),
      ms,
      ...before,
      peakMB: status('VmHWM'),
    }));
    process.exit(0);
  });
})().catch((error) => { console.error(error); process.exit(1); });
`;

interface Measured {
  readonly status: number;
  readonly bytes: number;
  readonly ms: number;
  readonly rssMB: number;
  readonly maxRssMB: number;
  readonly peakMB: number;
}

/** One run: a fresh function process, a small report, then one of `bytes`. */
function runOnce(
  node: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  setSize: (bytes: number | null) => Promise<void>,
  bytes: number,
): Promise<Measured> {
  const event = JSON.parse(readFileSync(path.join(ROOT, 'events/jobs-report.json'), 'utf8'));
  return new Promise((resolve, reject) => {
    // As Lambda's Node.js runtime starts a function of 256 MB (its bootstrap's flags).
    const flags = ['--expose-gc', '--max-semi-space-size=12', '--max-old-space-size=231'];
    const child = spawn(node, [...flags, '-e', RUNTIME, entry, JSON.stringify(event)], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', async (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n@ready\n') && !stdout.includes('@sent')) {
        stdout += '@sent';
        await setSize(bytes);
        child.stdin.write('go\n');
      }
      const line = stdout.split('\n').find((each) => each.startsWith('@result '));
      if (line) resolve(JSON.parse(line.slice('@result '.length)) as Measured);
    });
    child.once('exit', (code) => {
      if (code !== 0)
        reject(new Error(`the function's process exited ${code}: ${stdout.slice(-800)}`));
    });
  }).finally(() => setSize(null)) as Promise<Measured>;
}

/** The demo secret, its URLs on this emulator, as a file. */
function secretFileOf(secret: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'hand-off-bench-')), 'secret.json');
  writeFileSync(file, JSON.stringify(secret));
  return file;
}

export async function benchHandOff(options: BenchOptions): Promise<void> {
  const runs = options.runs ?? 5;
  const node = options.nodes[0] ?? process.execPath;
  const entry = unpackedEntry(packageArtifacts(options.skipPackage), 'getJobReport');
  const emulator = await startEmulator({ quiet: true });
  const handOff = await startLocalHandOff(AWS);
  const setSize = async (bytes: number | null) => {
    await fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ report: bytes }),
    });
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...AWS,
    ...handOff.env,
    SCAN_BASE_URL: emulator.url,
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: secretFileOf(demoSecretFor(emulator.url)),
    UPSTREAM_TIMEOUT_MS: '60000',
    LOG_LEVEL: 'warn',
    // Answers larger than the ceiling's default, for --sizes past 100 MB.
    HAND_OFF_MAX_MB: '1000',
  };
  console.info(
    `\n## Answers of any size: the packaged report function, ${runs} runs each (${node})`,
  );
  console.info(
    '| answer | status | time to the 303 (median, min-max) | resident after a small report (its peak) | peak resident (median, max) |',
  );
  console.info('| --- | --- | --- | --- | --- |');
  for (const mb of options.sizes ?? [20, 90]) {
    const measured: Measured[] = [];
    for (let i = 0; i < runs; i++) {
      measured.push(await runOnce(node, entry, env, setSize, mb * MB));
      handOff.standIn.reset();
    }
    const ms = measured.map((m) => m.ms);
    const peaks = measured.map((m) => m.peakMB);
    console.info(
      `| ${mb} MB | ${[...new Set(measured.map((m) => m.status))].join(', ')} | ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)}) | ${median(measured.map((m) => m.rssMB)).toFixed(0)} MB (${median(measured.map((m) => m.maxRssMB)).toFixed(0)} MB) | ${median(peaks).toFixed(0)} MB (${Math.max(...peaks).toFixed(0)}) |`,
    );
  }
  await handOff.standIn.close();
  await emulator.close();
}
