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
 * Options: --skip-package (reuse .serverless/), --only=overhead|cold|deadline|first-answer|floor|scale|usage|hand-off
 * (scale, bench/scale.ts, only when named: it takes minutes),
 * --runs=N (cold imports, first answers),
 * --node=/path/to/node (cold imports under another Node, e.g. 22 as on Lambda; repeatable as
 * a comma-separated list), --upstream=neutral|emulator (handler overhead; neutral by default),
 * --pin (section 1: this process on core 0, the upstream on core 1), --source (section 1 on the TypeScript
 * sources (Node strips their types) rather than on the packaged bundle).
 */
import path from 'node:path';
import { benchColdStart } from './cold-start.ts';
import { benchDeadline } from './deadline.ts';
import { benchFirstAnswer } from './first-answer.ts';
import { benchFloor } from './floor.ts';
import { benchOverhead } from './overhead.ts';
import { packageArtifacts, unpackedEntry } from './packaged.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key = '', value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value] as const;
  }),
);

const pin = args.get('pin') === 'true';
/** `serverless package`, once per run (unless --skip-package): the functions as they deploy. */
const artifacts = () => packageArtifacts(args.get('skip-package') === 'true');

const only = args.get('only');
if (!only || only === 'overhead') {
  await benchOverhead({
    pin,
    fromSource: args.get('source') === 'true',
    useEmulator: args.get('upstream') === 'emulator',
    packagedEntry: (name) => unpackedEntry(artifacts(), name),
  });
}
if (!only || only === 'cold') {
  benchColdStart({
    out: artifacts(),
    runs: Number(args.get('runs') ?? 9),
    nodes: [process.execPath, ...(args.get('node')?.split(',') ?? [])],
  });
}
if (!only || only === 'deadline') await benchDeadline(pin);
if (!only || only === 'first-answer') {
  // Packaged by the cold-start section when it ran; on its own, package now (or reuse).
  await benchFirstAnswer(
    only ? artifacts() : path.join(ROOT, '.serverless'),
    Number(args.get('runs') ?? 5),
    args.get('node')?.split(',')[0],
  );
}
if (!only || only === 'floor') {
  await benchFloor(
    only ? artifacts() : path.join(ROOT, '.serverless'),
    Number(args.get('runs') ?? 7),
    args.get('node')?.split(',')[0],
  );
}
if (only === 'scale') await (await import('./scale.ts')).benchScale(args);
if (only === 'hand-off') await (await import('./hand-off.ts')).benchHandOff(args);
if (!only || only === 'usage') await (await import('./usage.ts')).benchUsage(args);
process.exit(0);
