/**
 * Warm CPU per request of HTTP function bundles, for the floor section (bench/floor.ts), run on
 * the Node under test:
 *   node bench/floor/warm-cpu.ts <secret.json> <bundle.cjs>...
 * Loads each bundle's handler in this process (pinned to core 0; the neutral upstream on core
 * 1), each reading its secret from the file, warms them with 3,000 requests each, then times
 * 16 rounds of 1,000 requests per bundle, the order turning every round, as bench/ab.ts does.
 * Prints each bundle's median CPU per request (µs, every thread of this process) as one JSON
 * array. Bundles measured together should leave alike garbage: the fetch floor, which leaves
 * far more, is measured in a process of its own.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { type HttpHandler, lambdaContext, sampleEvent } from '../../test/helpers/lambda.ts';
import { logLinesAsLambda, median, startNeutralUpstream, timeSequential } from '../harness.ts';

const [secretFile, ...bundles] = process.argv.slice(2);
if (!secretFile || bundles.length === 0) {
  console.error('usage: warm-cpu.ts <secret.json> <bundle.cjs>...');
  process.exit(2);
}

execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const upstream = await startNeutralUpstream(true);
try {
  Object.assign(process.env, {
    SCAN_BASE_URL: `http://127.0.0.1:${upstream.port}`,
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: secretFile,
  });
  const event = sampleEvent('jobs-list.json');
  logLinesAsLambda(event.requestContext.requestId);
  const runs = bundles.map((bundle) => {
    const handler = (createRequire(import.meta.url)(bundle) as { handler: HttpHandler }).handler;
    return async () => {
      const result = await handler(event, lambdaContext());
      if (result.statusCode !== 200) throw new Error(`${bundle} answered ${result.statusCode}`);
    };
  });
  for (const run of runs) await timeSequential(run, 3000);
  const rounds = runs.map((): number[] => []);
  for (let round = 0; round < 16; round++) {
    for (let turn = 0; turn < runs.length; turn++) {
      const index = (round + turn) % runs.length;
      rounds[index]?.push((await timeSequential(runs[index]!, 1000)).cpuMicros);
    }
  }
  // console.log writes as Lambda's runtime does (to /dev/null here): the figures go to stdout.
  process.stdout.write(`${JSON.stringify(rounds.map(median))}\n`);
} finally {
  upstream.child.kill('SIGTERM');
}
process.exit(0);
