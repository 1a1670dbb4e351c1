/**
 * `npm run bench`: run by hand, never in CI. Prints, one module per section:
 *  1. handler overhead (overhead.ts): the packaged list-jobs bundle against a bare undici GET;
 *  2. cold start (cold-start.ts): every packaged bundle's size and load time in a fresh process;
 *  3. the upstream client (deadline.ts): its cost per request, and how far past a deadline an
 *     answer comes;
 *  4. every function's first answer as deployed (first-answer.ts);
 *  5. the floor (floor.ts): the package beside a hand-written GET /jobs, every cold start
 *     figure and target in one table;
 *  7. the usage plans (usage.ts): store calls per admission, the time one adds, one caller's
 *     admissions a second and over-admission, against dynalite on loopback;
 *  8. answers of any size (hand-off.ts): the packaged report function's peak memory and time to
 *     the 303 for a 20 MB and a 90 MB report, only when named.
 *
 * Options (bench/args.ts; `--runs 7` or `--runs=7`): --skip-package (reuse .serverless/),
 * --only overhead|cold|deadline|first-answer|floor|scale|usage|hand-off (scale, bench/scale.ts,
 * and hand-off only when named: they take minutes), --runs N (cold imports, first answers),
 * --node /path/to/node (cold imports under another Node as well; repeatable, or a
 * comma-separated list), --upstream neutral|emulator (handler overhead; neutral by default),
 * --pin (section 1: this process on core 0, the upstream on core 1), --source (section 1 on the
 * TypeScript sources (Node strips their types) rather than on the packaged bundle), --sizes
 * N,N... (scale's jobs, hand-off's MB).
 */
import path from 'node:path';
import { commandLine } from '../scripts/local/args.ts';
import { BENCH_USAGE, benchArgs } from './args.ts';
import { benchColdStart } from './cold-start.ts';
import { benchDeadline } from './deadline.ts';
import { benchFirstAnswer } from './first-answer.ts';
import { benchFloor } from './floor.ts';
import { benchOverhead } from './overhead.ts';
import { packageArtifacts, unpackedEntry } from './packaged.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const options = commandLine(BENCH_USAGE, benchArgs);
console.log(`Node ${process.version} runs the benchmark.`);

const { only, pin, runs, nodes } = options;
/** `serverless package`, once per run (unless --skip-package): the functions as they deploy. */
const artifacts = () => packageArtifacts(options.skipPackage);

if (!only || only === 'overhead') {
  await benchOverhead({
    pin,
    fromSource: options.source,
    useEmulator: options.upstream === 'emulator',
    packagedEntry: (name) => unpackedEntry(artifacts(), name),
  });
}
if (!only || only === 'cold') {
  benchColdStart({ out: artifacts(), runs: runs ?? 9, nodes: [process.execPath, ...nodes] });
}
if (!only || only === 'deadline') await benchDeadline(pin);
if (!only || only === 'first-answer') {
  // Packaged by the cold-start section when it ran; on its own, package now (or reuse).
  await benchFirstAnswer(only ? artifacts() : path.join(ROOT, '.serverless'), runs ?? 5, nodes[0]);
}
if (!only || only === 'floor') {
  await benchFloor(only ? artifacts() : path.join(ROOT, '.serverless'), runs ?? 7, nodes[0]);
}
if (only === 'scale') await (await import('./scale.ts')).benchScale(options);
if (only === 'hand-off') await (await import('./hand-off.ts')).benchHandOff(options);
if (!only || only === 'usage') await (await import('./usage.ts')).benchUsage(options);
process.exit(0);
