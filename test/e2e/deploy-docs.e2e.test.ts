/**
 * Every shell block of README.md and docs/deploy.md, as a reader runs them: each ARN a block
 * prints names the region the block deploys to, and the package's own commands among them run
 * as printed, in the document's order, in a clone of the project (scripts/deploy/clone.ts), with
 * the example values a reader would put in each `<...>`:
 *
 * - `npm run split-secret`, `npm run preflight`, `npm run new-caller`, and what they need of the
 *   block (the exports, the heredocs that write the documents, `rm`, `echo`), as printed;
 * - `npx serverless package`, as printed, into a folder of the test's (`--package`), so that it
 *   never shares `.serverless/` with another suite;
 * - `npx serverless deploy`: its flags and settings through `npm run preflight --offline`, which
 *   checks what a deploy refuses before it calls AWS (sls/plugins/settings.ts, the same check).
 *
 * What needs an AWS account (`aws ...`, the deploy itself, `serverless info`, `npm run smoke` on
 * a stage) is run by `npm run rehearse` against a stand-in AWS (docs/deploy.md, section 7); a
 * variable the guide sets from an `aws` command gets an example value here. The local commands
 * (`npm start`, `curl` on a local run, `invoke local`) are other suites'. A command no rule covers
 * fails the test, so that a new line of the docs gets one.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedClone } from '../../scripts/deploy/clone.ts';
import {
  bashBlocks,
  commandsOf,
  fill,
  placeholdersOf,
  regionalArns,
} from '../../scripts/deploy/guide.ts';
import { bareEnvironment } from '../helpers/bare-environment.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENTS = ['README.md', 'docs/deploy.md'];
/** The region of a document before it sets one: the framework's default. */
const DEFAULT_REGION = 'us-east-1';
const ACCOUNT = '123456789012';

/** What a reader puts in each `<...>` of a command the test runs (by the command's region). */
const EXAMPLES = (region: string): [string, string][] => [
  ['<access key id>', 'AKIAIOSFODNN7EXAMPLE'],
  ['<secret key>', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['<client id>', 'a1b2c3d4e5'],
  ['<client secret>', 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2H1g0'],
  ["<the hello action's invoke URL>", 'https://api.example.com/fx7h2k/prod/hello'],
  ["<the nightly trigger's invoke URL>", 'https://api.example.com/fx7h2k/prod/nightly'],
  ["<the webhook's secret>", 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  [
    '<the entry new-caller printed>',
    '{"id":"reporting","tokenSha256":"fd2c219eb87f5d4c074f5e90dca66815bd0fd866b99dc294ee09a943d23d134f","scopes":["jobs:read"]}',
  ],
  ['<region>', region],
  ['<account>', ACCOUNT],
  ['<name>', 'on-call-pool'],
];

/** A variable the guide sets from an `aws` command, as AWS would answer (by region). */
const AWS_ANSWERS = (region: string): Record<string, string> => ({
  TOPIC_ARN: `arn:aws:sns:${region}:${ACCOUNT}:platform-gateway-on-call`,
  REDRIVE_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/platform-gateway-prod-on-call`,
  ACCOUNT,
});

type Rule = 'run' | 'package' | 'deploy' | 'aws-answer' | 'needs-aws' | 'local';

/** The program of a command, its leading VAR=value words aside. */
function programOf(command: string): string {
  return command.replace(/^(\s*[A-Z_]+=("[^"]*"|'[^']*'|[^\s'"]*)\s+(\\\n\s*)?)+/, '').trim();
}

/** How the test treats a command of the docs. */
function ruleOf(command: string): Rule | undefined {
  const program = programOf(command);
  if (/^[A-Z_]+=\$\(aws\s/.test(command)) return 'aws-answer';
  if (/^export\s|^rm\s|^echo\s|^cat > \S+ <<|^\(umask 077; cat > \S+\) <</.test(program)) {
    return 'run';
  }
  if (/^npm run (split-secret|preflight|new-caller)\b/.test(program)) return 'run';
  if (/^npx serverless package\b/.test(program)) return 'package';
  if (/^npx serverless deploy(?! list)\b/.test(program)) return 'deploy';
  if (
    /^aws\s|^for .*\n[\s\S]*\baws\s|^npx serverless (info|remove|rollback|deploy list)\b|^npm run (smoke|test:aws)\b|^cfn-lint\s/.test(
      program,
    )
  ) {
    return 'needs-aws';
  }
  if (/^(npm (ci|start|test)\b|curl\s|T=|npx serverless invoke local\b)/.test(program)) {
    return 'local';
  }
  if (/\bnpm start$/.test(program)) return 'local';
  return undefined;
}

/** The region a command deploys to: its --region, its own AWS_REGION=, else the document's. */
function regionOf(command: string, current: string): string {
  return (
    /--region[= ]([a-z0-9-]+)/.exec(command)?.[1] ??
    /(?:^|\s)AWS_REGION=([a-z0-9-]+)/.exec(command)?.[1] ??
    current
  );
}

interface Step {
  readonly file: string;
  readonly line: number;
  readonly rule: Rule | undefined;
  readonly command: string;
  readonly region: string;
}

async function stepsOf(file: string): Promise<Step[]> {
  const steps: Step[] = [];
  let region = DEFAULT_REGION;
  for (const block of bashBlocks(await readFile(path.join(ROOT, file), 'utf8'))) {
    for (const command of commandsOf(block.text)) {
      const own = regionOf(command, region);
      steps.push({ file, line: block.line, rule: ruleOf(command), command, region: own });
      // An export sets the region of every later block.
      const exported = /^export\s.*\bAWS_REGION=([a-z0-9-]+)/m.exec(command)?.[1];
      if (exported) region = exported;
    }
  }
  return steps;
}

/** Text as one single-quoted shell word: nothing in it is expanded or run. */
const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The script that runs a document's steps: each as the test treats it, stopping at a failure. */
function scriptOf(steps: readonly Step[], packages: string): string {
  const lines = ['set -euo pipefail', 'exec 2>&1'];
  const seen = new Set<string>();
  steps.forEach((step, index) => {
    const fills = EXAMPLES(step.region);
    let command: string | undefined;
    if (step.rule === 'run') command = step.command;
    else if (step.rule === 'aws-answer') {
      const name = /^([A-Z_]+)=/.exec(step.command)![1]!;
      const answer = AWS_ANSWERS(step.region)[name];
      if (answer === undefined)
        throw new Error(`${step.file}:${step.line}: no example answer for ${name}`);
      command = `${name}=${answer}`;
    } else if (step.rule === 'package') {
      command = `${step.command} --package ${path.join(packages, path.basename(step.file), String(index))}`;
    } else if (step.rule === 'deploy') {
      command = `${step.command.replace('npx serverless deploy', 'npm run -s preflight --')} --offline`;
    }
    if (command === undefined) return;
    const filled = fill(command, fills);
    const left = placeholdersOf(filled);
    if (left.length > 0) {
      throw new Error(
        `${step.file}:${step.line}: no example for ${left.join(', ')} in: ${step.command}`,
      );
    }
    // A deploy line right after the preflight of the same flags is the check that just ran.
    const flags =
      /(?:npm run (?:-s )?preflight --|npx serverless deploy)(.*?)(?: --offline)?$/s.exec(
        filled,
      )?.[1];
    if (step.rule === 'deploy' && flags !== undefined && seen.has(flags)) return;
    if (flags !== undefined) seen.add(flags);
    lines.push(
      `printf '\\n::: %s\\n' ${quoted(`${step.file}:${step.line} ${step.command.split('\n')[0]}`)}`,
    );
    lines.push(filled);
  });
  return `${lines.join('\n')}\n`;
}

function bash(script: string, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: {
        ...bareEnvironment(),
        // No account: the preflight's online checks say so and stop there (never this machine's
        // own AWS configuration, nor the instance metadata service).
        AWS_CONFIG_FILE: path.join(cwd, '.aws-config-none'),
        AWS_SHARED_CREDENTIALS_FILE: path.join(cwd, '.aws-credentials-none'),
        AWS_EC2_METADATA_DISABLED: 'true',
        npm_config_update_notifier: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('the deploy commands of README.md and docs/deploy.md', async () => {
  const steps = (await Promise.all(DOCUMENTS.map(stepsOf))).flat();
  let packages: string;

  beforeAll(async () => {
    packages = await mkdtemp(path.join(tmpdir(), 'docs-packages-'));
  });
  afterAll(async () => {
    await rm(packages, { recursive: true, force: true });
  });

  it('have a rule for every command', () => {
    const unknown = steps.filter((step) => step.rule === undefined);
    expect(unknown.map((step) => `${step.file}:${step.line} ${step.command}`)).toEqual([]);
    // The package's own deploy commands are among them.
    for (const rule of ['run', 'package', 'deploy', 'aws-answer'] as const) {
      expect(
        steps.some((step) => step.rule === rule),
        rule,
      ).toBe(true);
    }
  });

  it('name, in every ARN, the region the block deploys to', () => {
    const wrong = steps.flatMap((step) =>
      regionalArns(step.command)
        .filter((arn) => arn.region !== step.region)
        .map(
          (arn) =>
            `${step.file}:${step.line}: ${arn.arn} in a block that deploys to ${step.region}`,
        ),
    );
    expect(wrong).toEqual([]);
    // The README's deploy example sets the region its ARNs name.
    expect(steps.some((step) => step.file === 'README.md' && step.region === 'eu-west-1')).toBe(
      true,
    );
  });

  // The documents side by side, each in a clone of its own.
  it.concurrent.each(DOCUMENTS)(
    '%s: its package commands succeed as printed',
    { timeout: 300_000 },
    async (file) => {
      const clone = await linkedClone('docs-commands');
      try {
        const script = scriptOf(
          steps.filter((step) => step.file === file),
          packages,
        );
        const { code, output } = await bash(script, clone.dir);
        const last = output.lastIndexOf('\n::: ');
        expect(code, `the last command failed:\n${output.slice(last)}`).toBe(0);
        // Nothing a deploy would refuse, in any check.
        expect(output).not.toMatch(/^\s+FAIL\s/m);
        if (file === 'docs/deploy.md') {
          expect(output).toContain('Wrote 5 documents for the prod stage');
          expect(output).toContain('✔ Service packaged');
        }
      } finally {
        await clone.remove();
      }
    },
  );
});
