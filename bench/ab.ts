/**
 * A/B of two builds of the list-jobs handler, in one process so that both see the same machine:
 *   npx tsx bench/ab.ts <bundle A.cjs> <bundle B.cjs> [rounds]
 * Each bundle is a CommonJS build of functions/jobs/list.ts (a packaged zip's .cjs, or esbuild
 * with the options of serverless.yml). Both call a neutral upstream (on core 1; this process on
 * core 0), in alternating rounds of 1,500 requests; the figure is the median of the paired
 * differences of CPU per request (every thread of this process), which machine noise moves
 * least. Log lines are written as Lambda's runtime writes them (harness.ts). Run by hand, never in CI.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type HttpHandler, lambdaContext, sampleEvent } from '../test/helpers/lambda.js';
import { logLinesAsLambda, median, startNeutralUpstream } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const [fileA, fileB, roundsArg] = process.argv.slice(2);
if (!fileA || !fileB) {
  console.error('usage: npx tsx bench/ab.ts <bundle A.cjs> <bundle B.cjs> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 16);

execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const { port, child: upstream } = await startNeutralUpstream(true);
Object.assign(process.env, {
  SCAN_BASE_URL: `http://127.0.0.1:${port}`,
  SECRETS_SOURCE: 'file',
  SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
});
logLinesAsLambda('bench');

const load = createRequire(import.meta.url);
const handlerA = (load(path.resolve(fileA)) as { handler: HttpHandler }).handler;
const handlerB = (load(path.resolve(fileB)) as { handler: HttpHandler }).handler;
const event = sampleEvent('jobs-list.json');

async function cpuPerRequest(handler: HttpHandler, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const result = await handler(event, lambdaContext());
    if (result.statusCode !== 200) throw new Error(`answered ${result.statusCode}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

await cpuPerRequest(handlerA, 3000);
await cpuPerRequest(handlerB, 3000);
const a: number[] = [];
const b: number[] = [];
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so that neither always follows the other.
  if (round % 2) {
    a.push(await cpuPerRequest(handlerA, 1500));
    b.push(await cpuPerRequest(handlerB, 1500));
  } else {
    b.push(await cpuPerRequest(handlerB, 1500));
    a.push(await cpuPerRequest(handlerA, 1500));
  }
}
const differences = a.map((value, i) => b[i]! - value);
console.info(
  `CPU per request: A ${median(a).toFixed(1)} µs, B ${median(b).toFixed(1)} µs; ` +
    `B - A, median of ${rounds} paired rounds: ${median(differences).toFixed(1)} µs ` +
    `(from ${Math.min(...differences).toFixed(1)} to ${Math.max(...differences).toFixed(1)})`,
);
upstream.kill('SIGTERM');
process.exit(0);
