/**
 * `npm run preflight -- --stage <stage> [--region <region>] [--param="<name>=<value>" ...]
 * [--secrets <dir>] [--offline]`: before a deploy, what would stop it or leave it unsafe, with
 * the flags `serverless deploy` takes.
 *
 * Offline: serverless.yml resolved for the stage by the framework itself (`serverless print`),
 * the settings a package or deploy refuses (sls/plugins/settings.ts, the same check), the
 * region of every ARN among the parameters, the reserved concurrency switch, and, with
 * `--secrets <dir>`, the stage's secret documents as `npm run split-secret` writes them
 * (scripts/deploy/secret-documents.ts). With AWS credentials (unless `--offline`), read-only:
 * each secret exists and parses, the alarm topic and the redrive principal exist, and the
 * account's unreserved Lambda concurrency covers what the stage reserves
 * (scripts/deploy/account.ts). No value of a secret is ever printed.
 *
 * One line per check: `ok` with what it found, or `FAIL` with the problem and its fix. Exits 0
 * when nothing was found, 1 when something was, 2 on a usage error.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reservedByFunction } from '../sls/plugins/reserved-concurrency.ts';
import * as settings from '../sls/plugins/settings.ts';
import * as hosts from '../sls/resolvers/hosts.ts';
import type { Check, Reservation } from './deploy/account.ts';
import {
  documentFileOf,
  documentProblems,
  type SecretStage,
  stageSecrets,
  standInOf,
} from './deploy/secret-documents.ts';
import {
  type DeployFlags,
  deployedNameOf,
  type ResolvedStage,
  reservationParams,
  resolveStage,
  type StageResolver,
} from './deploy/stage.ts';
import { parseCommand, refused, stageParams, UsageError } from './local/args.ts';

export interface PreflightOptions {
  readonly flags: DeployFlags;
  /** A directory of the stage's secret documents, as `npm run split-secret` writes them. */
  readonly secretsDir?: string | undefined;
  /** Offline checks only, credentials or not. */
  readonly offline?: boolean | undefined;
  /** How serverless.yml is resolved: `serverless print` (resolveStage) unless a test shares one. */
  readonly resolve?: StageResolver | undefined;
}

export interface PreflightLine {
  readonly ok: boolean;
  readonly text: string;
}

export interface PreflightReport {
  readonly title: string;
  readonly lines: readonly PreflightLine[];
  /** Why the online checks did not run, when they did not. */
  readonly notes: readonly string[];
  readonly problems: number;
}

/** What the secret checks need of the stage. */
function secretStageOf(resolved: ResolvedStage, env: NodeJS.ProcessEnv): SecretStage {
  return {
    stage: resolved.stage,
    standIn: standInOf(
      resolved.environment.SCAN_BASE_URL,
      resolved.environment.OPENAPI_BASE_URL,
      env,
    ),
    jwt: String(resolved.environment.JWT_ISSUER_URL ?? '').trim() !== '',
  };
}

/** Whether the command names the stack's region, rather than leave serverless.yml's default. */
function regionGiven(flags: DeployFlags, env: NodeJS.ProcessEnv): boolean {
  return [flags.region, env.AWS_REGION, env.AWS_DEFAULT_REGION].some(
    (each) => (each ?? '').trim() !== '',
  );
}

const alarmTopicsOf = (resolved: ResolvedStage) =>
  ((resolved.custom.alarmActions ?? []) as unknown[]).filter(
    (topic): topic is string => typeof topic === 'string',
  );
const redriveOf = (resolved: ResolvedStage) =>
  String(resolved.custom.redrivePrincipalArn ?? '').trim();

/**
 * The settings a deploy refuses, and every ARN parameter of another region than the stack's.
 * With no region given, one problem says so (and names the regions the ARN parameters name)
 * in place of a line for each ARN. `regionInDoubt` is whether a region problem was found.
 */
function checkSettings(
  resolved: ResolvedStage,
  flags: DeployFlags,
  env: NodeJS.ProcessEnv,
): Check & { regionInDoubt: boolean } {
  const given = regionGiven(flags, env);
  const disposable = (resolved.custom.dataRetention as { disposable?: unknown } | undefined)
    ?.disposable;
  const found = new Set(
    settings.problems({
      stage: resolved.stage,
      disposable,
      alarmActions: alarmTopicsOf(resolved),
      redrivePrincipal: resolved.custom.redrivePrincipalArn,
      // Without a region given, the region problem below is the one line about regions.
      region: given ? resolved.region : undefined,
      layers: resolved.layers,
      command: 'deploy',
      corsAllowedOrigins: resolved.custom.corsAllowedOrigins,
      secretsReader: resolved.environment.SECRETS_READER,
    }),
  );
  let arns = 0;
  const elsewhere = new Set<string>();
  for (const [name, value] of Object.entries(resolved.params)) {
    const where = settings.regionOfArn(value);
    if (where === undefined) continue;
    arns++;
    if (!where || where === resolved.region) continue;
    elsewhere.add(where);
    if (!given) continue;
    // Worded as settings.ts words it for the parameters it knows (the same line is one).
    found.add(
      `The ${name} parameter names a resource of ${where}, but the stack deploys to ${resolved.region}: a stack, ` +
        'its secrets, its key, its layer and its alarm topic must be in one region ' +
        '(set AWS_REGION, or pass --region, to the region they are in).',
    );
  }
  if (!given) {
    const named = [...elsewhere];
    found.add(
      `No region is set: the stack would go to ${resolved.region}, serverless.yml's default, whatever region the AWS CLI's profile names` +
        (named.length > 0 ? `, and the ARN parameters name ${named.join(', ')}` : '') +
        `. Set AWS_REGION and AWS_DEFAULT_REGION to the stack's region (docs/deploy.md, step 1), or pass --region ${named.length === 1 ? named[0] : '<region>'}.`,
    );
  }
  try {
    reservedByFunction(resolved.functions, resolved.custom.reservedConcurrency ?? {});
  } catch (error) {
    found.add((error as Error).message);
  }
  const standIn = hosts.awsStandIn(env);
  const urls = [resolved.environment.SCAN_BASE_URL, resolved.environment.OPENAPI_BASE_URL];
  const where = urls.every((url) => hosts.isPublicHttpsUrl(url))
    ? 'both base URLs https on a public host'
    : standIn
      ? `base URLs on this machine, for a deploy to the stand-in AWS at ${standIn}`
      : 'a base URL not https on a public host, which only a disposable stage may name';
  return {
    ok: `settings: region ${resolved.region}; ${arns} ARN parameter(s), all in that region; ${where}`,
    problems: [...found],
    regionInDoubt: !given || elsewhere.size > 0,
  };
}

async function checkDocuments(
  resolved: ResolvedStage,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  const stage = secretStageOf(resolved, env);
  const problems: string[] = [];
  const files: string[] = [];
  for (const secret of stageSecrets(resolved.environment)) {
    const file = path.join(dir, documentFileOf(secret));
    files.push(path.basename(file));
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    problems.push(...documentProblems(text, file, secret.capabilities, stage));
  }
  return { ok: `secret documents in ${dir}: ${files.join(', ')}`, problems };
}

async function reservationsOf(resolved: ResolvedStage): Promise<Reservation[]> {
  const reserved = reservedByFunction(
    resolved.functions,
    resolved.custom.reservedConcurrency ?? {},
  );
  const params = reservationParams();
  return Object.entries(reserved).map(([fn, count]) => ({
    fn,
    deployedName: deployedNameOf(resolved, fn),
    reserved: count,
    param: params[fn],
  }));
}

/** Runs every check; never throws for what it finds (only for a bug of its own). */
export async function preflight(options: PreflightOptions): Promise<PreflightReport> {
  const { flags } = options;
  let resolved: ResolvedStage;
  try {
    resolved = await (options.resolve ?? resolveStage)(flags);
  } catch (error) {
    return {
      title: `Preflight of stage ${flags.stage}`,
      lines: [
        {
          ok: false,
          text: `serverless.yml does not resolve for this stage: ${(error as Error).message}`,
        },
      ],
      notes: [],
      problems: 1,
    };
  }
  const env = process.env;
  const settingsCheck = checkSettings(resolved, flags, env);
  const checks: Check[] = [settingsCheck];
  if (options.secretsDir) checks.push(await checkDocuments(resolved, options.secretsDir, env));
  const notes: string[] = [];
  let title = `Preflight of ${resolved.service}, stage ${resolved.stage}, region ${resolved.region}`;
  if (options.offline) {
    notes.push('online checks not run (--offline)');
  } else {
    // The AWS SDK's clients, loaded only for the checks that call AWS.
    const { callerAccount, checkConcurrency, checkPrincipal, checkSecrets, checkTopics } =
      await import('./deploy/account.ts');
    let account: { account: string } | { none: string };
    try {
      account = await callerAccount(resolved.region);
    } catch (error) {
      account = { none: '' };
      checks.push({ ok: '', problems: [(error as Error).message] });
    }
    if ('none' in account) {
      if (account.none) notes.push(`online checks not run: ${account.none}`);
    } else {
      title += `, AWS account ${account.account}`;
      // What lives in the stack's region is not looked for in a region that may be the wrong one.
      if (settingsCheck.regionInDoubt) {
        notes.push(
          `the secrets and the Lambda concurrency not looked up in ${resolved.region}: the region problem above comes first`,
        );
      } else {
        checks.push(
          await checkSecrets(
            stageSecrets(resolved.environment),
            resolved.region,
            secretStageOf(resolved, env),
          ),
        );
      }
      const topics = alarmTopicsOf(resolved);
      if (topics.length > 0) checks.push(await checkTopics(topics));
      const redrive = redriveOf(resolved);
      if (redrive) checks.push(await checkPrincipal(redrive, resolved.region));
      let reservations: Reservation[] | undefined;
      try {
        reservations = await reservationsOf(resolved);
      } catch {
        reservations = undefined; // an invalid reserveConcurrency: the settings check says so
      }
      if (reservations && !settingsCheck.regionInDoubt) {
        checks.push(await checkConcurrency(reservations, resolved.region));
      }
    }
  }
  for (const check of checks) notes.push(...(check.skipped ?? []));
  const lines: PreflightLine[] = [];
  for (const check of checks) {
    if (check.problems.length === 0) {
      if (check.ok) lines.push({ ok: true, text: check.ok });
    } else {
      for (const problem of check.problems) lines.push({ ok: false, text: problem });
    }
  }
  return { title, lines, notes, problems: lines.filter((line) => !line.ok).length };
}

const USAGE =
  'usage: npm run preflight -- --stage <stage> [--region <region>] [--param "<name>=<value>" ...] [--secrets <dir>] [--offline]';
const OPTIONS = {
  stage: { type: 'string' },
  region: { type: 'string' },
  param: { type: 'string', multiple: true },
  secrets: { type: 'string' },
  offline: { type: 'boolean' },
} as const;

/** The command: prints the report; returns the exit code. */
export function main(
  args: readonly string[],
  out = console.log,
  err = console.error,
  resolve: StageResolver = resolveStage,
): Promise<number> {
  return run(args, out, resolve).catch((error: unknown) => refused(error, USAGE, err));
}

async function run(
  args: readonly string[],
  out: (line: string) => void,
  resolve: StageResolver,
): Promise<number> {
  const { values, positionals } = parseCommand(args, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unknown argument: ${positionals[0]}`);
  for (const name of ['stage', 'region', 'secrets'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  }
  if (!values.stage) throw new UsageError('--stage is required');
  const report = await preflight({
    flags: { stage: values.stage, region: values.region, params: stageParams(values.param) },
    secretsDir: values.secrets,
    offline: values.offline === true,
    resolve,
  });
  out(`${report.title}:`);
  for (const line of report.lines) out(`  ${line.ok ? 'ok  ' : 'FAIL'}  ${line.text}`);
  for (const note of report.notes) out(`  note  ${note}`);
  out(
    report.problems === 0
      ? 'No problem found.'
      : `${report.problems} problem(s): the deploy would fail or leave the stage unsafe. Each FAIL line says what to do.`,
  );
  return report.problems === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
