/**
 * The shell lines of the README and docs/ that call a local run, run as printed by bash against
 * serverless offline and the emulator on ports of their own (PORT and EMULATOR_PORT, as a
 * developer running `npm start` on other ports would set them): every line follows them, and
 * each block does what its comments say.
 */
import { exec } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.ts';
import { secretFile } from '../../helpers/platform.ts';
import { sharedStackForSuite } from '../offline.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(exec);
/** A block is a local run's when it sets B from PORT. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, as the docs print it
const LOCAL_BLOCK = 'B=http://127.0.0.1:${PORT:-3000}';

async function documents(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.map((name) => path.join('docs', name))];
}

/** The fenced bash blocks of a document. */
function bashBlocks(text: string): string[] {
  return [...text.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('the shell lines of the docs', async () => {
  const files = await documents();
  const local: [string, string][] = [];
  for (const file of files) {
    for (const block of bashBlocks(await readFile(path.join(ROOT, file), 'utf8'))) {
      if (block.includes(LOCAL_BLOCK)) local.push([file, block]);
    }
  }
  let secret: string;
  const { emulator, offline } = sharedStackForSuite();
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'docs-lines-'));
    secret = await secretFile(demoSecretFor(emulator.url));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('name no fixed local port in a command: they follow PORT and EMULATOR_PORT', async () => {
    for (const file of files) {
      for (const block of bashBlocks(await readFile(path.join(ROOT, file), 'utf8'))) {
        for (const line of block.split('\n').map((each) => each.replace(/\s#\s.*$/, ''))) {
          if (!/\bcurl\b|^\s*[A-Z]+=http/.test(line)) continue;
          expect(line, file).not.toMatch(/127\.0\.0\.1:\d|localhost:\d/);
        }
      }
    }
    expect(local.map(([file]) => file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/catalogue.md', 'docs/webhooks-and-events.md']),
    );
  });

  it.each(local.map(([file, block]) => [file, block]))(
    '%s: its local calls answer on the ports given',
    { timeout: 120_000 },
    async (file, block) => {
      const port = new URL(offline.baseUrl).port;
      const { stdout, stderr } = await run(block, {
        // npm run needs the project; the files curl writes (-o) go to a folder of the test's.
        cwd: block.includes('npm run') ? ROOT : work,
        shell: '/bin/bash',
        env: {
          PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
          HOME: process.env.HOME,
          // The run's compile cache (vitest.config.ts): a faster start, the same command.
          NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
          PORT: port,
          EMULATOR_PORT: String(emulator.port),
          SECRETS_FILE: secret,
          npm_config_prefix: undefined,
        },
        maxBuffer: 64 * 1024 * 1024,
      });
      const output = `${stdout}\n${stderr}`;
      // Nothing refused, nothing unexpected.
      expect(output, file).not.toMatch(/curl: \(7\)|Failed to connect|Nothing answers/);
      expect(output, file).not.toMatch(/"errorCode":"(900|500)"/);
      if (file === 'docs/catalogue.md') {
        // Both CAPTCHA answers were looked up on the emulator's port and matched.
        expect(output.match(/"result":true/g), output).toHaveLength(2);
      }
      if (file === 'docs/errors.md') {
        // A 20 MB report: the 303, then the bytes themselves by curl -L, their digest the 303's.
        expect(output).toMatch(/^HTTP\/1\.1 303 See Other/m);
        expect(output).toMatch(/^answer-length: 20971520/im);
        expect(output).toMatch(/^\s*20971520$/m);
        const announced = /^answer-digest: (\S+)/im.exec(output)?.[1];
        expect(announced).toMatch(/^sha-256=:.{44}:$/);
        expect(output.split('\n')).toContain(announced);
      }
      if (file === 'docs/webhooks-and-events.md') {
        expect(output).toContain('Hello, Ada!');
        expect(output).toMatch(/^202 /m);
      }
    },
  );
});
