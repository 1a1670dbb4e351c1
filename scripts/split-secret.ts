/**
 * `npm run split-secret -- <secret.json> <out dir> [--stage=<stage>] [--region=<region>]
 * [--empty=<capability>,...] [--force] [--offline]`: writes the per-capability documents of a stage that splits its secret
 * (every stage, by default), from one document: `signing.json`, `catalogue.json`,
 * `execution.json`, `webhooks.json`, `callers.json`, each with its capability's fields only
 * (lib/secrets/schema.ts CAPABILITY_FIELDS), and prints the secret each goes to
 * (sls/resolvers/secrets.ts names them) with the command that puts it there: `create-secret`
 * for a secret that does not exist yet, `put-secret-value` for one that does (asked of Secrets
 * Manager, read-only, when there are AWS credentials and not --offline).
 *
 * The document is validated first, as a function validates it (an error names the field, never
 * its value), and so is each part, as its own secret; then as `npm run preflight` checks a
 * stage's documents (scripts/deploy/secret-documents.ts): every capability present, and in every
 * stage, `dev` included, no demo credential, no caller token in plain text, and no action URL
 * that is not https on a public host (a rehearsal's stand-ins excepted).
 * `--empty=webhooks` writes an empty document ({}) for a capability the stage does not use, on
 * purpose: its secret must exist all the same.
 *
 * Nothing is written while a problem remains, the files' places included: each file is a new
 * 0600 file renamed into place, never written through a symbolic link, in a directory no other
 * user may write to (created 0700), and an existing file is replaced only with --force
 * (scripts/deploy/secret-files.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SECRET_CAPABILITIES, type SecretCapability } from '../lib/core/secret-capabilities.ts';
import { CAPABILITY_FIELDS, splitByCapability } from '../lib/secrets/schema.ts';
import { parseSecret } from '../lib/secrets/store.ts';
import * as secrets from '../sls/resolvers/secrets.ts';
import { callerAccount, secretsExist } from './deploy/account.ts';
import {
  documentProblems,
  missingCapability,
  neededCapabilities,
  type SecretStage,
  standInOf,
} from './deploy/secret-documents.ts';
import {
  type SecretFile,
  SecretFilesRefused,
  secretFileProblems,
  writeSecretFiles,
} from './deploy/secret-files.ts';
import { parseCommand, refused, UsageError } from './local/args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Part {
  readonly capability: SecretCapability;
  readonly file: string;
  readonly fields: readonly string[];
  /** The secret a split stage reads it from. */
  readonly secretId: string;
}

interface SplitOptions {
  text: string;
  origin: string;
  outDir: string;
  service: string;
  stage: string;
  force?: boolean | undefined;
  /** Capabilities written as an empty document ({}): the stage does not use them, on purpose. */
  empty?: readonly SecretCapability[] | undefined;
}

/**
 * The parts of the document in `text`, each with its file's text, for a stage of `service`:
 * nothing written. Throws, naming fields only, when the document or a part is not valid.
 */
async function partsOf(options: SplitOptions): Promise<(Part & SecretFile)[]> {
  // As a function reads it: refused whole, naming the field, when any part is wrong.
  parseSecret(options.text, options.origin);
  const document = JSON.parse(options.text) as Record<string, unknown>;
  const held = new Set<string>(Object.values(CAPABILITY_FIELDS).flat());
  const unknown = Object.keys(document).filter((field) => !held.has(field));
  if (unknown.length > 0) {
    throw new Error(
      `${unknown.join(', ')}: no capability holds this field, so no split secret would (lib/secrets/schema.ts CAPABILITY_FIELDS)`,
    );
  }
  const { ids } = await secrets.layoutOf(
    async (name) =>
      ({
        'self:service': options.service,
        'sls:stage': options.stage,
        'param:secretLayout': 'split',
      })[name],
  );
  const split = splitByCapability(document);
  for (const capability of options.empty ?? []) split[capability] ??= {};
  return (Object.entries(split) as [SecretCapability, Record<string, unknown>][]).map(
    ([capability, part]) => {
      const text = `${JSON.stringify(part, null, 2)}\n`;
      // As the capability's own secret is read: its fields only.
      parseSecret(text, `the ${capability} part`, { fields: CAPABILITY_FIELDS[capability] });
      const name = `${capability}.json`;
      return {
        capability,
        name,
        text,
        file: path.join(options.outDir, name),
        fields: Object.keys(part),
        secretId: ids[capability],
      };
    },
  );
}

/**
 * Splits the document in `text` into `outDir`, for a stage of `service`; returns what it wrote.
 * Every part is checked, and every file's place (scripts/deploy/secret-files.ts), before any is
 * written: throws, naming fields only, when the document or a part is not valid, and
 * SecretFilesRefused when a file cannot be written safely, having written nothing.
 */
export async function splitSecret(options: SplitOptions): Promise<Part[]> {
  const parts = await partsOf(options);
  await writeSecretFiles(options.outDir, parts, { force: options.force });
  return parts.map(({ capability, file, fields, secretId }) => ({
    capability,
    file,
    fields,
    secretId,
  }));
}

/**
 * What keeps the document from being a stage's secret (scripts/deploy/secret-documents.ts): a
 * capability it holds nothing of, and what its parts may not hold in this stage. One line each.
 */
export function splitProblems(
  document: Readonly<Record<string, unknown>>,
  origin: string,
  stage: SecretStage,
  empty: readonly SecretCapability[] = [],
): string[] {
  const parts = splitByCapability(document);
  const problems = new Set<string>();
  for (const capability of neededCapabilities(stage)) {
    if (!parts[capability] && !empty.includes(capability)) {
      problems.add(
        missingCapability(
          capability,
          `${origin} has nothing for the ${capability} capability`,
          `pass --empty=${capability} to write its document empty ({})`,
        ),
      );
    }
  }
  for (const [capability, part] of Object.entries(parts) as [SecretCapability, object][]) {
    for (const problem of documentProblems(JSON.stringify(part), origin, [capability], stage)) {
      problems.add(problem);
    }
  }
  return [...problems];
}

/** The stage as a deploy from this shell would see it (its base URLs, its AWS, its JWT issuer). */
function stageOf(stage: string, env: NodeJS.ProcessEnv): SecretStage {
  return {
    stage,
    standIn: standInOf(env.SCAN_BASE_URL, env.OPENAPI_BASE_URL, env),
    jwt: (env.JWT_ISSUER_URL ?? '').trim() !== '',
  };
}

/** The service's name, as serverless.yml says it. */
async function serviceName(): Promise<string> {
  const yml = await readFile(path.join(ROOT, 'serverless.yml'), 'utf8');
  return /^service:\s*(\S+)/m.exec(yml)?.[1] ?? 'platform-gateway';
}

const USAGE =
  'usage: npm run split-secret -- <secret.json> <out dir> [--stage <stage>] [--region <region>] [--empty <capability>,...] [--force] [--offline]';
const OPTIONS = {
  stage: { type: 'string' },
  region: { type: 'string' },
  empty: { type: 'string', multiple: true },
  force: { type: 'boolean' },
  offline: { type: 'boolean' },
} as const;

export function main(
  args: readonly string[],
  out = console.log,
  err = console.error,
): Promise<number> {
  return run(args, out, err).catch((error: unknown) => refused(error, USAGE, err));
}

async function run(
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const { values, positionals } = parseCommand(args, OPTIONS);
  const [input, outDir, ...rest] = positionals;
  if (!input || !outDir) throw new UsageError('a secret file and a folder to write to are needed');
  if (rest.length > 0) throw new UsageError(`unknown argument: ${rest[0]}`);
  const empty = (values.empty ?? []).flatMap((list) => list.split(',')).filter(Boolean);
  const strange = empty.filter(
    (name) => !(SECRET_CAPABILITIES as readonly string[]).includes(name),
  );
  if (strange.length > 0) {
    throw new UsageError(
      `--empty takes capabilities (${SECRET_CAPABILITIES.join(', ')}), not ${strange.join(', ')}`,
    );
  }
  const stage = values.stage || 'dev';
  // The stack's region, as serverless.yml takes it.
  const region =
    values.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1';
  let parts: Part[];
  try {
    const text = await readFile(input, 'utf8');
    parseSecret(text, input);
    const options: SplitOptions = {
      text,
      origin: input,
      outDir,
      service: await serviceName(),
      stage,
      force: values.force === true,
      empty: empty as SecretCapability[],
    };
    // Everything that would stop it, checked before anything is written.
    const problems = [
      ...splitProblems(JSON.parse(text), input, stageOf(stage, process.env), options.empty),
      ...(await secretFileProblems(outDir, await partsOf(options), options.force === true))
        .problems,
    ];
    if (problems.length > 0) {
      for (const problem of problems) err(`FAIL  ${problem}`);
      err(`${problems.length} problem(s) for the ${stage} stage: nothing written.`);
      return 1;
    }
    parts = await splitSecret(options);
  } catch (error) {
    if (error instanceof SecretFilesRefused) {
      for (const problem of error.problems) err(`FAIL  ${problem}`);
      err(`${error.problems.length} problem(s): nothing written.`);
    } else {
      err((error as Error).message);
    }
    return 1;
  }
  out(`Wrote ${parts.length} documents for the ${stage} stage, one per capability:\n`);
  for (const part of parts) {
    out(`  ${part.file}  (${part.fields.join(', ')})  ->  ${part.secretId}`);
  }
  if (!(values.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION)) {
    out(
      `\nNo region is set: ${region} is serverless.yml's default. If the stack goes elsewhere, set AWS_REGION and AWS_DEFAULT_REGION to its region (docs/deploy.md, step 1), or pass --region.`,
    );
  }
  const exists = await existing(
    parts.map((part) => part.secretId),
    region,
    values.offline === true,
  );
  const create = (part: Part) =>
    `  aws secretsmanager create-secret --region ${region} --name ${part.secretId} --secret-string file://${part.file}`;
  const put = (part: Part) =>
    `  aws secretsmanager put-secret-value --region ${region} --secret-id ${part.secretId} --secret-string file://${part.file}`;
  if (exists.known) {
    const missing = parts.filter((part) => !exists.ids.get(part.secretId));
    const present = parts.filter((part) => exists.ids.get(part.secretId));
    if (missing.length > 0) {
      out(`\nCreate the secrets that do not exist yet in ${region}:\n`);
      for (const part of missing) out(create(part));
    }
    if (present.length > 0) {
      out(`\nPut a new value in those that exist in ${region}:\n`);
      for (const part of present) out(put(part));
    }
  } else {
    out(
      `\nCreate each secret in ${region} (${exists.why}; for a secret that exists, put-secret-value instead):\n`,
    );
    for (const part of parts) out(create(part));
    out(
      `\n  (for one that exists:${put(parts[0]!).slice(1).replace(parts[0]!.secretId, '<secret>').replace(parts[0]!.file, '<file>')})`,
    );
  }
  out('\nThen delete the files: they hold the secret.');
  return 0;
}

/** Which of the secrets exist, when the account can be asked. */
async function existing(
  ids: readonly string[],
  region: string,
  offline: boolean,
): Promise<{ known: true; ids: Map<string, boolean | undefined> } | { known: false; why: string }> {
  if (offline) return { known: false, why: 'not looked up: --offline' };
  try {
    const account = await callerAccount(region);
    if ('none' in account) return { known: false, why: `not looked up: ${account.none}` };
    const found = await secretsExist(ids, region);
    if ([...found.values()].some((each) => each === undefined)) {
      return { known: false, why: 'Secrets Manager did not say whether they exist' };
    }
    return { known: true, ids: found };
  } catch (error) {
    return { known: false, why: `not looked up: ${(error as Error).message}` };
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
