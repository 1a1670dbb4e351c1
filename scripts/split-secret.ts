/**
 * `npm run split-secret -- <secret.json> <out dir> [--stage=<stage>] [--force]`: writes the
 * per-capability documents of a stage that splits its secret (every stage, by default), from one
 * document: `signing.json`, `catalogue.json`, `execution.json`, `webhooks.json`, `callers.json`,
 * each with its capability's fields only (lib/secrets/schema.ts CAPABILITY_FIELDS), and prints
 * the secret each goes to (scripts/sls/secrets.cjs names them) with the command that puts it.
 *
 * The document is validated first, as a function validates it (an error names the field, never
 * its value), and so is each part, as its own secret. The files are written readable by their
 * owner only, and an existing file is not overwritten unless --force.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SecretCapability } from '../lib/core/secret-capabilities.js';
import { CAPABILITY_FIELDS, splitByCapability } from '../lib/secrets/schema.js';
import { parseSecret } from '../lib/secrets/store.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const secrets = createRequire(import.meta.url)('./sls/secrets.cjs') as {
  layoutOf: (
    resolveVariable: (name: string) => Promise<unknown>,
  ) => Promise<{ ids: Record<SecretCapability, string> }>;
};

interface Part {
  readonly capability: SecretCapability;
  readonly file: string;
  readonly fields: readonly string[];
  /** The secret a split stage reads it from. */
  readonly secretId: string;
}

/**
 * Splits the document in `text` into `outDir`, for a stage of `service`; returns what it wrote.
 * Throws, naming fields only, when the document or a part is not valid.
 */
export async function splitSecret(options: {
  text: string;
  origin: string;
  outDir: string;
  service: string;
  stage: string;
  force?: boolean;
}): Promise<Part[]> {
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
  await mkdir(options.outDir, { recursive: true, mode: 0o700 });
  const parts: Part[] = [];
  for (const [capability, part] of Object.entries(splitByCapability(document)) as [
    SecretCapability,
    Record<string, unknown>,
  ][]) {
    const text = `${JSON.stringify(part, null, 2)}\n`;
    // As the capability's own secret is read: its fields only.
    parseSecret(text, `the ${capability} part`, { fields: CAPABILITY_FIELDS[capability] });
    const file = path.join(options.outDir, `${capability}.json`);
    await writeFile(file, text, { mode: 0o600, flag: options.force ? 'w' : 'wx' });
    parts.push({ capability, file, fields: Object.keys(part), secretId: ids[capability] });
  }
  return parts;
}

/** The service's name, as serverless.yml says it. */
async function serviceName(): Promise<string> {
  const yml = await readFile(path.join(ROOT, 'serverless.yml'), 'utf8');
  return /^service:\s*(\S+)/m.exec(yml)?.[1] ?? 'platform-gateway';
}

const USAGE = 'usage: npm run split-secret -- <secret.json> <out dir> [--stage=<stage>] [--force]';

export async function main(args: readonly string[], out = console.log, err = console.error) {
  const flags = args.filter((arg) => arg.startsWith('--'));
  const [input, outDir, ...rest] = args.filter((arg) => !arg.startsWith('--'));
  const unknown = flags.filter((flag) => flag !== '--force' && !flag.startsWith('--stage='));
  if (!input || !outDir || rest.length > 0 || unknown.length > 0) {
    err(USAGE);
    return 2;
  }
  const stage = flags.find((flag) => flag.startsWith('--stage='))?.slice(8) || 'dev';
  let parts: Part[];
  try {
    parts = await splitSecret({
      text: await readFile(input, 'utf8'),
      origin: input,
      outDir,
      service: await serviceName(),
      stage,
      force: flags.includes('--force'),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    err(
      code === 'EEXIST'
        ? `${(error as NodeJS.ErrnoException).path} exists: remove it, or pass --force`
        : (error as Error).message,
    );
    return 1;
  }
  out(`Wrote ${parts.length} documents for the ${stage} stage, one per capability:\n`);
  for (const part of parts) {
    out(`  ${part.file}  (${part.fields.join(', ')})  ->  ${part.secretId}`);
  }
  out('\nPut each in its secret (create-secret the first time, then put-secret-value):\n');
  for (const part of parts) {
    out(
      `  aws secretsmanager put-secret-value --secret-id ${part.secretId} --secret-string file://${part.file}`,
    );
  }
  out('\nThen delete the files: they hold the secret.');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
