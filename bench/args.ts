/**
 * The command lines of `npm run bench` (run.ts) and `node bench/ab.ts`, read with the scripts'
 * one syntax (scripts/local/args.ts): `--runs 7` and `--runs=7` alike, an unknown flag refused.
 */
import { parseCommand, UsageError } from '../scripts/local/args.ts';

const SECTIONS = [
  'overhead',
  'cold',
  'deadline',
  'first-answer',
  'floor',
  'scale',
  'usage',
  'hand-off',
] as const;
type Section = (typeof SECTIONS)[number];

export const BENCH_USAGE = `usage: npm run bench -- [--only ${SECTIONS.join('|')}] [--skip-package] [--runs N] [--node <path>[,<path>...]] [--upstream neutral|emulator] [--pin] [--source] [--sizes N[,N...]]`;

/** What `npm run bench` was asked for. */
export interface BenchOptions {
  /** One section; none: every section but scale and hand-off. */
  readonly only?: Section | undefined;
  /** Reuse .serverless/ instead of packaging. */
  readonly skipPackage: boolean;
  /** Runs of each measure; each section's own default when absent. */
  readonly runs?: number | undefined;
  /** Other Nodes to run the functions on (the cold imports take each, the others the first). */
  readonly nodes: readonly string[];
  /** Section 1's upstream. */
  readonly upstream: 'neutral' | 'emulator';
  /** Section 1: this process on core 0, the upstream on core 1. */
  readonly pin: boolean;
  /** Section 1 on the TypeScript sources rather than the packaged bundle. */
  readonly source: boolean;
  /** The sizes of scale (jobs) and hand-off (MB); each section's own when absent. */
  readonly sizes?: readonly number[] | undefined;
}

const positive = (flag: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(`${flag} takes a whole number of at least 1, not "${text}"`);
  }
  return value;
};

/** `npm run bench`'s options; throws UsageError. */
export function benchArgs(args: readonly string[]): BenchOptions {
  const { values, positionals } = parseCommand(args, {
    only: { type: 'string' },
    'skip-package': { type: 'boolean' },
    runs: { type: 'string' },
    node: { type: 'string', multiple: true },
    upstream: { type: 'string' },
    pin: { type: 'boolean' },
    source: { type: 'boolean' },
    sizes: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unknown argument: ${positionals[0]}`);
  const only = values.only;
  if (only !== undefined && !(SECTIONS as readonly string[]).includes(only)) {
    throw new UsageError(`--only takes one of ${SECTIONS.join(', ')}, not "${only}"`);
  }
  const upstream = values.upstream ?? 'neutral';
  if (upstream !== 'neutral' && upstream !== 'emulator') {
    throw new UsageError(`--upstream takes neutral or emulator, not "${upstream}"`);
  }
  return {
    only: only as Section | undefined,
    skipPackage: values['skip-package'] === true,
    runs: values.runs === undefined ? undefined : positive('--runs', values.runs),
    nodes: (values.node ?? []).flatMap((list) => list.split(',')).filter(Boolean),
    upstream,
    pin: values.pin === true,
    source: values.source === true,
    sizes: values.sizes?.split(',').map((size) => positive('--sizes', size)),
  };
}

export const AB_USAGE =
  'usage: node bench/ab.ts <bundle A.cjs> <bundle B.cjs>... [rounds] [--per-round N] [--event <sample event>.json]';

/** What `node bench/ab.ts` was asked for; throws UsageError. */
export function abArgs(args: readonly string[]): {
  files: string[];
  rounds: number;
  perRound: number;
  event: string;
} {
  const { values, positionals } = parseCommand(args, {
    'per-round': { type: 'string' },
    event: { type: 'string' },
  });
  const files = positionals.filter((arg) => arg.endsWith('.cjs') || arg.endsWith('.js'));
  const others = positionals.filter((arg) => !files.includes(arg));
  if (others.length > 1 || (others[0] !== undefined && !/^\d+$/.test(others[0]))) {
    throw new UsageError(
      `unknown argument: ${others.find((arg) => !/^\d+$/.test(arg)) ?? others[1]}`,
    );
  }
  if (files.length < 2) throw new UsageError('two bundles at least are needed');
  if (values.event === '') throw new UsageError('--event needs a sample event');
  return {
    files,
    rounds: others[0] === undefined ? 16 : positive('rounds', others[0]),
    perRound:
      values['per-round'] === undefined ? 1500 : positive('--per-round', values['per-round']),
    event: values.event ?? 'jobs-list.json',
  };
}
