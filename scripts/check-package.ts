/**
 * After `serverless package`: every function declared in the generated CloudFormation template
 * must have its own artifact in .serverless/, holding one bundle, its source map, and undici's
 * HTTP parser beside it when the bundle reads it (`<bundle>.llhttp.wasm`,
 * sls/plugins/esbuild-plugins.ts), and the hand-off's upload when it can hand off
 * (`<bundle>.hand-off.cjs`, loaded on the first answer too large to return), nothing else. The
 * reference page's renderer (Swagger UI) is in the docs function's bundle and in no other, and
 * every other HTTP function loads at most 250 KB (its bundle and the parser beside it; the
 * hand-off's upload only when an answer is too large). Prints each artifact's size, and what its
 * function loads (the bundle and the parser beside it). Exits
 * non-zero on any problem. `node scripts/check-package.ts [folder]` checks another package folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { FUNCTIONS } from '../sls/functions.ts';
import { commandLine, parseCommand, UsageError } from './local/args.ts';

/** The package folder of the command line, if one is named; throws UsageError. */
function packageFolderOf(args: readonly string[]): string | undefined {
  const [folder, ...rest] = parseCommand(args, {}).positionals;
  if (rest.length > 0) throw new UsageError(`unknown argument: ${rest[0]}`);
  return folder;
}

const USAGE = 'usage: node scripts/check-package.ts [package folder, .serverless/ by default]';
const out = path.resolve(
  commandLine(USAGE, packageFolderOf) ?? path.join(import.meta.dirname, '../.serverless'),
);
/** What an HTTP function may load: its bundle and the HTTP parser beside it. */
const HTTP_BUNDLE_LIMIT_BYTES = 250 * 1024;
/** Functions that no HTTP route calls (the function table's): held to no size here. */
const EVENT_FUNCTIONS = new Set(
  Object.values(FUNCTIONS)
    .filter((fn) => fn.routes.length === 0)
    .map((fn) => fn.name),
);
/** The one function that carries the reference page's renderer: GET /docs's. */
const RENDERER_FUNCTION = serviceRoutes.docs.function;
/**
 * How the renderer's script is carried: gzipped, in base64, over 300 KB of it (the OpenAPI
 * document, carried the same way, is about 10 KB).
 */
const RENDERER_MARK = /H4sIA[A-Za-z0-9+/=]{300000,}/;
const template = JSON.parse(
  readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

const problems: string[] = [];
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const functions = Object.entries(template.Resources).filter(
  ([, resource]) => resource.Type === 'AWS::Lambda::Function',
);
const artifacts = new Set<string>();
for (const [logicalId, resource] of functions) {
  const code = resource.Properties.Code as { S3Key?: unknown };
  const key = JSON.stringify(code.S3Key ?? '');
  const zip = /([\w.-]+\.zip)/.exec(key)?.[1];
  if (!zip) {
    problems.push(`${logicalId}: no artifact in its Code`);
    continue;
  }
  if (artifacts.has(zip)) problems.push(`${logicalId}: shares ${zip} with another function`);
  artifacts.add(zip);
  const file = path.join(out, zip);
  if (!existsSync(file)) {
    problems.push(`${logicalId}: ${zip} is missing`);
    continue;
  }
  const entries = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((entry) => !entry.endsWith('/'));
  const bundles = entries.filter(
    (entry) => entry.endsWith('.cjs') && !entry.endsWith('.hand-off.cjs'),
  );
  if (bundles.length !== 1) {
    problems.push(`${zip}: ${bundles.length} bundles`);
    continue;
  }
  const bundle = bundles[0]!.replace(/\.cjs$/, '');
  const parser = `${bundle}.llhttp.wasm`;
  const handOff = `${bundle}.hand-off.cjs`;
  const allowed = new Set([`${bundle}.cjs`, `${bundle}.cjs.map`, parser, handOff]);
  const unexpected = entries.filter((entry) => !allowed.has(entry));
  if (unexpected.length > 0) problems.push(`${zip}: unexpected files ${unexpected.join(', ')}`);
  const bundled = execFileSync('unzip', ['-p', file, `${bundle}.cjs`], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const readsParser = bundled.includes('.llhttp.wasm');
  if (readsParser && !entries.includes(parser)) problems.push(`${zip}: ${parser} is missing`);
  const handsOff = bundled.includes('.hand-off.cjs');
  if (handsOff !== entries.includes(handOff)) {
    problems.push(`${zip}: ${handsOff ? `${handOff} is missing` : `${handOff} is not loaded`}`);
  }
  const name = zip.replace(/\.zip$/, '');
  const carriesRenderer = RENDERER_MARK.test(bundled.toString('latin1'));
  if (name === RENDERER_FUNCTION && !carriesRenderer) {
    problems.push(`${zip}: the reference's renderer is not in it`);
  }
  if (name !== RENDERER_FUNCTION && carriesRenderer) {
    problems.push(`${zip}: carries the reference's renderer, which only ${RENDERER_FUNCTION} may`);
  }
  const parserBytes = entries.includes(parser)
    ? execFileSync('unzip', ['-p', file, parser], { maxBuffer: 16 * 1024 * 1024 }).length
    : 0;
  const loaded = bundled.length + parserBytes;
  if (
    name !== RENDERER_FUNCTION &&
    !EVENT_FUNCTIONS.has(name) &&
    loaded > HTTP_BUNDLE_LIMIT_BYTES
  ) {
    problems.push(
      `${zip}: loads ${kb(loaded)}, over the ${HTTP_BUNDLE_LIMIT_BYTES / 1024} KB of an HTTP function`,
    );
  }
  console.log(
    `${logicalId.padEnd(40)} ${zip.padEnd(32)} ${kb(statSync(file).size).padStart(9)}, loads ${kb(loaded).padStart(9)}`,
  );
}
if (functions.length === 0) problems.push('the template declares no Lambda function');
if (problems.length > 0) {
  console.error(`\nPackage check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`\n${functions.length} functions, each with its own artifact.`);
