/**
 * A/B of builds of the list-jobs handler, in one process so that all see the same machine:
 *   node bench/ab.ts <bundle A.cjs> <bundle B.cjs> [<bundle C.cjs>...] [rounds] [--per-round N]
 *     [--event jobs-report.json]
 * Each bundle is a CommonJS build of functions/jobs/list.ts (a packaged zip's .cjs, or esbuild
 * with the options of serverless.yml), or the floor (bench/floor/undici.ts built as floor.ts
 * builds it); with --event, of the function of that sample event (the report's, say). All call a neutral upstream (on core 1; this process on core 0), in rounds of
 * 1,500 requests (--per-round) whose order turns every round; the figure is, for each bundle
 * after A, the median of the paired differences of CPU per request from A (every thread of this
 * process), which machine noise moves least. On a busy machine, many short rounds (80 of 300)
 * steady it more than a few long ones. Log lines are written as Lambda's runtime writes them
 * (harness.ts). Run by hand, never in CI.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { commandLine } from '../scripts/local/args.ts';
import { type HttpHandler, lambdaContext, sampleEvent } from '../test/helpers/lambda.ts';
import { AB_USAGE, abArgs } from './args.ts';
import { logLinesAsLambda, median, startNeutralUpstream } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const { files, rounds, perRound, event: eventFile } = commandLine(AB_USAGE, abArgs);

execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const { port, child: upstream } = await startNeutralUpstream(true);
Object.assign(process.env, {
  SCAN_BASE_URL: `http://127.0.0.1:${port}`,
  SECRETS_SOURCE: 'file',
  SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
});
logLinesAsLambda('bench');

const load = createRequire(import.meta.url);
const handlers = files.map(
  (file) => (load(path.resolve(file)) as { handler: HttpHandler }).handler,
);
const event = sampleEvent(eventFile);

async function cpuPerRequest(handler: HttpHandler, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const result = await handler(event, lambdaContext());
    if (result.statusCode !== 200) throw new Error(`answered ${result.statusCode}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

for (const handler of handlers) await cpuPerRequest(handler, 3000);
const cpu = handlers.map((): number[] => []);
for (let round = 0; round < rounds; round++) {
  // The order turns every round, so that none always follows another.
  for (let turn = 0; turn < handlers.length; turn++) {
    const index = (round + turn) % handlers.length;
    cpu[index]!.push(await cpuPerRequest(handlers[index]!, perRound));
  }
}
const [a = []] = cpu;
console.info(`CPU per request, median of ${rounds} rounds of ${perRound}:`);
files.forEach((file, index) => {
  const own = cpu[index]!;
  const differences = own.map((value, round) => value - a[round]!);
  const label = String.fromCharCode(65 + index);
  console.info(
    `  ${label} ${median(own).toFixed(1)} µs  ${path.basename(file)}` +
      (index === 0
        ? ''
        : `; ${label} - A, median of paired rounds: ${median(differences).toFixed(1)} µs ` +
          `(from ${Math.min(...differences).toFixed(1)} to ${Math.max(...differences).toFixed(1)})`),
  );
});
upstream.kill('SIGTERM');
process.exit(0);
