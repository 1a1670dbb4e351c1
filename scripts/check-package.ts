/**
 * After `serverless package`: every function declared in the generated CloudFormation template
 * must have its own artifact in .serverless/, holding one bundle, its source map, and undici's
 * HTTP parser beside it when the bundle reads it (`<bundle>.llhttp.wasm`,
 * scripts/sls/esbuild-plugins.cjs), nothing else. Prints each artifact's size. Exits non-zero on
 * any problem.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve(import.meta.dirname, '../.serverless');
const template = JSON.parse(
  readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

const problems: string[] = [];
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
  const bundles = entries.filter((entry) => entry.endsWith('.cjs'));
  if (bundles.length !== 1) {
    problems.push(`${zip}: ${bundles.length} bundles`);
    continue;
  }
  const bundle = bundles[0]!.replace(/\.cjs$/, '');
  const parser = `${bundle}.llhttp.wasm`;
  const allowed = new Set([`${bundle}.cjs`, `${bundle}.cjs.map`, parser]);
  const unexpected = entries.filter((entry) => !allowed.has(entry));
  if (unexpected.length > 0) problems.push(`${zip}: unexpected files ${unexpected.join(', ')}`);
  const readsParser = execFileSync('unzip', ['-p', file, `${bundle}.cjs`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }).includes('.llhttp.wasm');
  if (readsParser && !entries.includes(parser)) problems.push(`${zip}: ${parser} is missing`);
  console.log(
    `${logicalId.padEnd(40)} ${zip.padEnd(32)} ${(statSync(file).size / 1024).toFixed(1)} KB`,
  );
}
if (functions.length === 0) problems.push('the template declares no Lambda function');
if (problems.length > 0) {
  console.error(`\nPackage check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`\n${functions.length} functions, each with its own artifact.`);
