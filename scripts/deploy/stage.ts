/**
 * A stage as `serverless deploy` would build it: the command's own flags (`--stage`, `--region`,
 * `--param=<name>=<value>`), and serverless.yml resolved with them by the framework itself
 * (`serverless print`, offline: no AWS call), so that the preflight reads the same settings,
 * secret names and reserved concurrency as the deploy, with no copy of the framework's rules.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { FUNCTIONS } from '../../sls/functions.ts';
import { PROJECT_ROOT } from '../local/paths.ts';

const run = promisify(execFile);

/** The flags `serverless deploy` takes that decide what it deploys. */
export interface DeployFlags {
  readonly stage: string;
  readonly region?: string | undefined;
  /** `--param` values, in the order given (a later one wins, as the framework does). */
  readonly params: readonly (readonly [string, string])[];
}

/** The flags as the serverless CLI takes them. */
function cliArgsOf(flags: DeployFlags): string[] {
  return [
    '--stage',
    flags.stage,
    ...(flags.region ? ['--region', flags.region] : []),
    ...flags.params.map(([name, value]) => `--param=${name}=${value}`),
  ];
}

interface PrintedFunction {
  readonly name?: string;
  readonly reservedConcurrency?: number | string | null;
}

/** serverless.yml as the framework resolves it for a stage. */
export interface ResolvedStage {
  readonly service: string;
  readonly stage: string;
  readonly region: string;
  /** The stage's parameters: the command's `--param`s over the stage's own over `default`. */
  readonly params: Readonly<Record<string, string>>;
  /** The functions' environment (provider.environment). */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly custom: Readonly<Record<string, unknown>>;
  readonly layers: readonly unknown[];
  readonly functions: Readonly<Record<string, PrintedFunction>>;
}

/** A function's name as deployed: its own `name`, else `<service>-<stage>-<function>`. */
export function deployedNameOf(resolved: ResolvedStage, fn: string): string {
  return resolved.functions[fn]?.name ?? `${resolved.service}-${resolved.stage}-${fn}`;
}

const asStrings = (value: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((value ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v ?? '')]),
  );

/**
 * Resolves serverless.yml for the flags with `serverless print` (the project's CLI, in the
 * project, with this process's environment as a deploy would see it). Throws with the
 * framework's own message when it cannot be resolved.
 */
export async function resolveStage(
  flags: DeployFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedStage> {
  // IS_OFFLINE would make serverless.yml resolve local values (sls/resolvers/local.ts).
  const { IS_OFFLINE: _local, ...deployEnv } = env;
  let stdout: string;
  try {
    ({ stdout } = await run(
      path.join(PROJECT_ROOT, 'node_modules/.bin/serverless'),
      ['print', ...cliArgsOf(flags), '--format', 'json'],
      { cwd: PROJECT_ROOT, env: deployEnv, maxBuffer: 64 * 1024 * 1024 },
    ));
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ''}\n${(error as { stderr?: string }).stderr ?? ''}`;
    throw new Error(frameworkMessage(output) || (error as Error).message);
  }
  const printed = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
    service: string | { name: string };
    params?: Record<string, Record<string, unknown>>;
    provider: {
      region: string;
      environment?: Record<string, unknown>;
      layers?: unknown[];
    };
    custom?: Record<string, unknown>;
    functions?: Record<string, PrintedFunction>;
  };
  return {
    service: typeof printed.service === 'string' ? printed.service : printed.service.name,
    stage: flags.stage,
    region: printed.provider.region,
    params: {
      ...asStrings(printed.params?.default),
      ...asStrings(printed.params?.[flags.stage]),
      ...Object.fromEntries(flags.params),
    },
    environment: printed.provider.environment ?? {},
    custom: printed.custom ?? {},
    layers: printed.provider.layers ?? [],
    functions: printed.functions ?? {},
  };
}

/** Resolves serverless.yml for the flags, with an environment (resolveStage's signature). */
export type StageResolver = (flags: DeployFlags, env?: NodeJS.ProcessEnv) => Promise<ResolvedStage>;

/**
 * `resolve` run once for each set of flags and environment it is given (the environment a run
 * sees, whole, is part of the key): for a process that resolves the same stage more than once,
 * such as a test file that runs the preflight again and again. A resolution that fails is tried
 * again the next time. The memo is the returned function's own, never the module's.
 */
export function resolvingOnce(resolve: StageResolver = resolveStage): StageResolver {
  const resolved = new Map<string, Promise<ResolvedStage>>();
  return (flags, env = process.env) => {
    const key = JSON.stringify([
      flags.stage,
      flags.region ?? null,
      flags.params,
      Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ]);
    let found = resolved.get(key);
    if (!found) {
      found = resolve(flags, env);
      resolved.set(key, found);
      found.catch(() => resolved.delete(key));
    }
    return found;
  };
}

/** The lines of the framework's error that say what is wrong, joined into one. */
function frameworkMessage(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) => line && !/^(Environment|Docs|Support|Bugs):/.test(line) && !/^✖|^×/.test(line),
    );
  const start = lines.indexOf('Error:');
  const message = (start >= 0 ? lines.slice(start + 1) : lines.slice(-3)).join(' ');
  return message.replace(/\s+/g, ' ').trim();
}

/**
 * The param that sets each function's reserved concurrency (its entry's `concurrency.reserved` in
 * the function table, sls/functions.ts), by function: what the preflight tells an operator to
 * lower.
 */
export function reservationParams(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const fn of Object.values(FUNCTIONS)) {
    if (fn.concurrency && 'reserved' in fn.concurrency) found[fn.name] = fn.concurrency.reserved;
  }
  return found;
}
