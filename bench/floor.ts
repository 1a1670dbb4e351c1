/**
 * Section 5 of `npm run bench`, the floor: the packaged list-jobs function beside GET /jobs
 * written by hand with the same promises and no framework (bench/floor/), in two variants:
 * Node's built-in fetch (the floor of a first answer) and an undici Agent (the floor of a warm
 * request). Prints, in one run, every figure the cold start is held to:
 *  - the default deploy's first answer (the secret read with one signed GetSecretValue) as a
 *    ratio to the same function reading a local file, and to the fetch floor reading its
 *    secret the same way;
 *  - warm CPU per request as a ratio to the undici floor;
 *  - the largest HTTP function bundle.
 * Each function runs with the environment its template gives it (NODE_OPTIONS included).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { demoSecretFor, startEmulator } from '../emulator/index.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { FUNCTIONS } from '../sls/functions.ts';
import { sampleEvent } from '../test/helpers/lambda.ts';
import { firstAnswerOnce, startSecretsStandIn } from './first-answer.ts';
import { median } from './harness.ts';
import { deployedEnvironment, loadedBytes, unpackedEntry } from './packaged.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECRET_ID = 'platform-gateway/dev/platform';
/** The HTTP functions (their bundles are held to the size target); the rest run on events. */
const EVENT_FUNCTIONS = new Set(
  Object.values(FUNCTIONS)
    .filter((fn) => fn.routes.length === 0)
    .map((fn) => fn.name),
);
/**
 * The reference page carries its renderer (Swagger UI, about 1.7 MB) in its own bundle, apart:
 * it is held to no size, and every other HTTP function to 250 KB (scripts/check-package.ts).
 */
const APART = new Set([serviceRoutes.docs.function]);

/** The floor's two variants, bundled as the functions are (minified CommonJS for node24). */
async function buildFloors(dir: string): Promise<{ fetch: string; undici: string }> {
  const out = {
    fetch: path.join(dir, 'floor-fetch.cjs'),
    undici: path.join(dir, 'floor-undici.cjs'),
  };
  for (const [variant, file] of Object.entries(out)) {
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'bench/floor', `${variant}.ts`)],
      outfile: file,
      bundle: true,
      minify: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      logLevel: 'error',
    });
  }
  return out;
}

/**
 * The largest HTTP function bundle of the packaged zips, in KB (1,024 bytes), with the HTTP
 * parser file beside it: what the function loads.
 */
function largestHttpBundle(out: string): { name: string; kb: number } {
  let largest = { name: '', kb: 0 };
  for (const zip of readdirSync(out).filter((f) => f.endsWith('.zip'))) {
    const name = zip.replace(/\.zip$/, '');
    if (EVENT_FUNCTIONS.has(name) || APART.has(name)) continue;
    const kb = loadedBytes(unpackedEntry(out, name)) / 1024;
    if (kb > largest.kb) largest = { name, kb };
  }
  return largest;
}

export async function benchFloor(out: string, runs: number, node = process.execPath) {
  const work = mkdtempSync(path.join(tmpdir(), 'floor-'));
  const floors = await buildFloors(work);
  const emulator = await startEmulator({ quiet: true });
  const secret = demoSecretFor(emulator.url);
  const secretFile = path.join(work, 'secret.json');
  writeFileSync(secretFile, JSON.stringify(secret));
  const standIn = await startSecretsStandIn(JSON.stringify(secret));
  const secretsEndpoint = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
  const listJobs = unpackedEntry(out, 'listJobs');
  const event = sampleEvent('jobs-list.json');

  const lambda = {
    PATH: process.env.PATH,
    NODE_PATH: path.join(ROOT, 'node_modules'),
    AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-listJobs',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench-session',
    SCAN_BASE_URL: emulator.url,
    SECRET_ID,
    // Required when deployed; the bench's caller has no plan, so no admission calls it.
    USAGE_TABLE: 'bench-usage',
  };
  const signed = { AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsEndpoint };
  const cells = {
    'package, secret from a file': {
      file: listJobs,
      env: {
        ...deployedEnvironment(out, 'listJobs'),
        ...lambda,
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: secretFile,
      },
    },
    'package, the default deploy': {
      file: listJobs,
      env: { ...deployedEnvironment(out, 'listJobs'), ...lambda, ...signed },
    },
    'floor on fetch': { file: floors.fetch, env: { ...lambda, ...signed } },
    'floor on an undici Agent': { file: floors.undici, env: { ...lambda, ...signed } },
  };
  const firsts = new Map<string, number[]>(Object.keys(cells).map((name) => [name, []]));
  for (let round = 0; round < runs; round++) {
    for (const [name, cell] of Object.entries(cells)) {
      emulator.reset();
      const result = await firstAnswerOnce(node, cell.file, 'handler', event, cell.env);
      if (result.status !== 200) throw new Error(`${name} answered ${result.status}`);
      firsts.get(name)!.push(result.firstMs);
    }
  }
  await emulator.close();
  await new Promise((resolve) => standIn.close(resolve));

  const warm = warmCpu(node, listJobs, floors, secretFile);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const first = (name: keyof typeof cells) => median(firsts.get(name)!);
  const defaultDeploy = first('package, the default deploy');
  const largest = largestHttpBundle(out);
  console.info(
    `\n5. The floor (Node ${version}: first answers in a fresh process, median of ${runs}; warm CPU per request against the neutral upstream, median of 16 rounds in turns)`,
  );
  for (const name of Object.keys(cells) as (keyof typeof cells)[]) {
    console.info(`   first answer, ${name.padEnd(30)} ${first(name).toFixed(1).padStart(7)} ms`);
  }
  for (const [name, micros] of Object.entries(warm)) {
    console.info(`   warm CPU per request, ${name.padEnd(22)} ${micros.toFixed(0).padStart(7)} µs`);
  }
  const rows: [string, string, string][] = [
    [
      'first answer, default deploy / local-file shape',
      `${(defaultDeploy / first('package, secret from a file')).toFixed(2)}x`,
      '<= 1.10x',
    ],
    [
      'first answer, default deploy / fetch floor',
      `${(defaultDeploy / first('floor on fetch')).toFixed(2)}x`,
      '<= 1.10x',
    ],
    [
      'warm CPU per request, package / undici floor',
      `${(warm.package / warm['undici floor']).toFixed(2)}x`,
      '<= 1.10x',
    ],
    ['largest HTTP function bundle', `${largest.kb.toFixed(1)} KB (${largest.name})`, '<= 250 KB'],
  ];
  console.info(
    '   figure                                              now                    target',
  );
  for (const [figure, now, target] of rows) {
    console.info(`   ${figure.padEnd(52)}${now.padEnd(23)}${target}`);
  }
}

/**
 * CPU per request of the packaged function and both floors on the Node under test
 * (floor/warm-cpu.ts): the package and the undici floor in one process, in turns; the fetch
 * floor in a process of its own (it leaves far more garbage, which the next would pay for).
 */
function warmCpu(
  node: string,
  listJobs: string,
  floors: { fetch: string; undici: string },
  secretFile: string,
): Record<'package' | 'undici floor' | 'fetch floor', number> {
  const measure = (...bundles: string[]): number[] =>
    JSON.parse(
      execFileSync(node, [path.join(ROOT, 'bench/floor/warm-cpu.ts'), secretFile, ...bundles], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
  const [pkg = Number.NaN, undici = Number.NaN] = measure(listJobs, floors.undici);
  const [fetch = Number.NaN] = measure(floors.fetch);
  return { package: pkg, 'undici floor': undici, 'fetch floor': fetch };
}
