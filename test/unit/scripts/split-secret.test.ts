/**
 * `npm run split-secret`: one document cut into the per-capability documents a split stage
 * reads, each valid as its capability's own secret, written for its owner only.
 */

import { randomBytes } from 'node:crypto';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_CAPABILITIES } from '../../../lib/core/secret-capabilities.ts';
import { CAPABILITY_FIELDS, platformSecretSchema } from '../../../lib/secrets/schema.ts';
import { parseSecret } from '../../../lib/secrets/store.ts';
import { main, splitSecret } from '../../../scripts/split-secret.ts';
import { DEMO_SECRET_FILE } from '../../helpers/platform.ts';

let dir: string;
const SAVED = { ...process.env };
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'split-secret-'));
});
afterEach(async () => {
  process.env = { ...SAVED };
  await rm(dir, { recursive: true, force: true });
});

const split = async (text: string, extra: { stage?: string; force?: boolean } = {}) =>
  splitSecret({
    text,
    origin: 'secret.json',
    outDir: path.join(dir, 'out'),
    service: 'platform-gateway',
    stage: extra.stage ?? 'prod',
    force: extra.force,
  });

describe('splitSecret', () => {
  it('writes one document per capability, each valid as its own secret, together the whole', async () => {
    const text = await readFile(DEMO_SECRET_FILE, 'utf8');
    const parts = await split(text);
    expect(parts.map((part) => part.capability)).toEqual([...SECRET_CAPABILITIES]);
    const joined: Record<string, unknown> = {};
    for (const part of parts) {
      const written = await readFile(part.file, 'utf8');
      expect(() =>
        parseSecret(written, part.capability, { fields: CAPABILITY_FIELDS[part.capability] }),
      ).not.toThrow();
      expect(part.secretId).toBe(`platform-gateway/prod/${part.capability}`);
      expect((await stat(part.file)).mode & 0o777).toBe(0o600);
      Object.assign(joined, JSON.parse(written));
    }
    expect(joined).toEqual(JSON.parse(text));
  });

  it('names the secret a stage reads each from, its own setting first', async () => {
    process.env.WEBHOOKS_SECRET_ID = 'team/hooks';
    const parts = await split('{"webhooks":{}, "iam":{"accessKey":"a","secretKey":"b"}}', {
      stage: 'dev',
    });
    expect(parts.map((part) => [part.capability, part.secretId])).toEqual([
      ['signing', 'platform-gateway/dev/signing'],
      ['webhooks', 'team/hooks'],
    ]);
  });

  it('refuses a document a function would refuse, naming the field and writing nothing', async () => {
    const text = JSON.stringify({
      iam: { accessKey: 'AK', secretKey: 'very-secret-value' },
      callers: [{ id: 'x', token: 'short-token-value', scopes: ['*'] }],
    });
    const error = (await split(text).catch((thrown: unknown) => thrown)) as Error;
    expect(error.message).toContain('callers.0.token');
    expect(error.message).not.toContain('short-token-value');
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a field no capability holds, rather than leave it out', async () => {
    const error = (await split('{"apiKey":"k","extra":{"x":1}}').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^extra: no capability holds this field/);
  });

  it('overwrites nothing unless told to', async () => {
    await split('{"apiKey":"k"}');
    await expect(split('{"apiKey":"k2"}')).rejects.toMatchObject({
      problems: [`${path.join(dir, 'out', 'signing.json')} exists: remove it, or pass --force`],
    });
    expect(JSON.parse(await readFile(path.join(dir, 'out', 'signing.json'), 'utf8'))).toEqual({
      apiKey: 'k',
    });
    await split('{"apiKey":"k2"}', { force: true });
    expect(JSON.parse(await readFile(path.join(dir, 'out', 'signing.json'), 'utf8'))).toEqual({
      apiKey: 'k2',
    });
  });
});

describe('the files it writes', () => {
  const out = () => path.join(dir, 'out');
  const demo = () => readFile(DEMO_SECRET_FILE, 'utf8');
  const mode = async (file: string) => (await stat(file)).mode & 0o777;

  it('replaces a 0644 file with --force by a new 0600 one', async () => {
    await mkdir(out(), { mode: 0o700 });
    const signing = path.join(out(), 'signing.json');
    await writeFile(signing, '{"apiKey":"old"}', { mode: 0o644 });
    await chmod(signing, 0o644);
    await split('{"apiKey":"new"}', { force: true });
    expect(await mode(signing)).toBe(0o600);
    expect(JSON.parse(await readFile(signing, 'utf8'))).toEqual({ apiKey: 'new' });
  });

  it('refuses a symbolic link, with --force too, leaving its target untouched and writing nothing', async () => {
    await mkdir(out(), { mode: 0o700 });
    const elsewhere = path.join(dir, 'elsewhere.json');
    await writeFile(elsewhere, 'untouched');
    await chmod(elsewhere, 0o666);
    await symlink(elsewhere, path.join(out(), 'callers.json'));
    const error = (await split(await demo(), { force: true }).catch((e: unknown) => e)) as {
      problems: string[];
    };
    expect(error.problems).toEqual([
      `${path.join(out(), 'callers.json')} is a symbolic link: remove it (the secret is never written through a link).`,
    ]);
    expect(await readFile(elsewhere, 'utf8')).toBe('untouched');
    expect(await mode(elsewhere)).toBe(0o666);
    expect(await readdir(out())).toEqual(['callers.json']);
  });

  it('writes no file when a problem is found with one of them', async () => {
    await mkdir(out(), { mode: 0o700 });
    await writeFile(path.join(out(), 'webhooks.json'), '{}');
    await expect(split(await demo())).rejects.toMatchObject({
      problems: [`${path.join(out(), 'webhooks.json')} exists: remove it, or pass --force`],
    });
    expect(await readdir(out())).toEqual(['webhooks.json']);
  });

  it('creates its directory 0700, and refuses one another user may write to', async () => {
    await split('{"apiKey":"k"}');
    expect(await mode(out())).toBe(0o700);
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    const error = (await splitSecret({
      text: '{"apiKey":"k"}',
      origin: 'secret.json',
      outDir: shared,
      service: 'platform-gateway',
      stage: 'prod',
    }).catch((e: unknown) => e)) as { problems: string[] };
    expect(error.problems).toEqual([
      expect.stringMatching(/shared is writable by every user \(mode 777\): another user could/),
    ]);
    expect(await readdir(shared)).toEqual([]);
    expect(await mode(shared)).toBe(0o777);
  });

  it('removes what it wrote when a write fails half way, and says nothing was written', async () => {
    await mkdir(out(), { mode: 0o700 });
    // The fourth part's temporary name is taken: the first three are written before it fails.
    const taken = `.webhooks.json.${process.pid}.tmp`;
    await writeFile(path.join(out(), taken), '');
    const error = (await split(await demo()).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/EEXIST.*: nothing written \(the files were not replaced\)$/);
    expect(await readdir(out())).toEqual([taken]);
  });
});

describe('the capabilities', () => {
  it('hold every field of the secret, each field in one capability', () => {
    const held = Object.values(CAPABILITY_FIELDS).flat();
    expect([...held].sort()).toEqual(Object.keys(platformSecretSchema.shape).sort());
    expect(new Set(held).size).toBe(held.length);
  });
});

describe('the command', () => {
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await main(
      args,
      (line) => lines.push(line),
      (line) => errors.push(line),
    );
    return { code, out: lines.join('\n'), err: errors.join('\n') };
  };

  /** A document a deployed stage can use: its own keys, https URLs, the caller by its digest. */
  async function deployable(): Promise<string> {
    const file = path.join(dir, 'secret.json');
    await writeFile(
      file,
      JSON.stringify({
        iam: { accessKey: 'AKIAPRODUCTION000001', secretKey: randomBytes(30).toString('base64') },
        openapi: { clientId: 'prodclient', clientSecret: randomBytes(30).toString('base64') },
        actions: { hello: { url: 'https://api.example.com/fx7h2k/prod/hello' } },
        webhooks: {
          github: { secret: `whsec_${randomBytes(32).toString('base64')}`, action: 'hello' },
        },
        callers: [{ id: 'reporting', tokenSha256: 'ab'.repeat(32), scopes: ['jobs:read'] }],
      }),
    );
    return file;
  }

  it('prints where each document goes, and create-secret for each (nothing looked up: --offline)', async () => {
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    const input = await deployable();
    const { code, out } = await run([input, path.join(dir, 'out'), '--stage=dev', '--offline']);
    expect(code).toBe(0);
    expect(out).toContain(
      `aws secretsmanager create-secret --region us-east-1 --name platform-gateway/dev/callers --secret-string file://${path.join(dir, 'out', 'callers.json')}`,
    );
    expect(out).toContain("No region is set: us-east-1 is serverless.yml's default.");
    expect(out).not.toContain('put-secret-value --region us-east-1 --secret-id platform-gateway');
    expect((await run([input])).code).toBe(2);
    const again = await run([input, path.join(dir, 'out'), '--offline']);
    expect(again.code).toBe(1);
    expect(again.err).toContain(
      `FAIL  ${path.join(dir, 'out', 'callers.json')} exists: remove it, or pass --force`,
    );
    expect(again.err).toMatch(/5 problem\(s\) for the dev stage: nothing written\.$/);
  });

  it('takes --flag value and --flag=value alike, and refuses an unknown flag with the usage line', async () => {
    const spaced = await run([
      await deployable(),
      path.join(dir, 'spaced'),
      '--stage',
      'dev',
      '--region',
      'eu-west-1',
      '--offline',
    ]);
    expect(spaced.code).toBe(0);
    expect(spaced.out).toContain('create-secret --region eu-west-1 --name platform-gateway/dev/');
    expect(spaced.out).not.toContain('No region is set');
    const unknown = await run([DEMO_SECRET_FILE, path.join(dir, 'other'), '--stgae=prod']);
    expect(unknown.code).toBe(2);
    expect(unknown.err.split('\n')).toEqual([
      expect.stringContaining("Unknown option '--stgae'"),
      expect.stringMatching(/^usage: npm run split-secret -- <secret.json> <out dir>/),
    ]);
    expect((await run([DEMO_SECRET_FILE, path.join(dir, 'other'), 'extra'])).code).toBe(2);
  });

  it('writes nothing for a stage other than dev while the demo credentials are in the document', async () => {
    const { code, err } = await run([
      DEMO_SECRET_FILE,
      path.join(dir, 'out'),
      '--stage=qa',
      '--offline',
    ]);
    expect(code).toBe(1);
    expect(err).toContain("callers.0 (demo) holds a demo caller's token");
    expect(err).toContain("webhooks.demo.secret is the demo webhook's secret");
    expect(err).toContain('actions.hello.url is a plain http:// URL on this machine');
    expect(err).toMatch(/problem\(s\) for the qa stage: nothing written\.$/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes nothing for dev either while the demo credentials or a plain token are in the document', async () => {
    const demo = await run([DEMO_SECRET_FILE, path.join(dir, 'out'), '--stage=dev', '--offline']);
    expect(demo.code).toBe(1);
    expect(demo.err).toContain("callers.0 (demo) holds a demo caller's token");
    expect(demo.err).toContain("webhooks.demo.secret is the demo webhook's secret");
    expect(demo.err).toMatch(/problem\(s\) for the dev stage: nothing written\.$/);
    const input = path.join(dir, 'plain.json');
    await writeFile(
      input,
      JSON.stringify({
        callers: [{ id: 'reporting', token: randomBytes(32).toString('base64url'), scopes: ['*'] }],
      }),
    );
    // The stage's default is dev.
    const plain = await run([
      input,
      path.join(dir, 'out'),
      '--offline',
      '--empty=signing,catalogue,execution,webhooks',
    ]);
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('callers.0 (reporting) holds its token in plain text');
    expect(await readdir(dir)).toEqual(['plain.json']);
  });

  it('names every capability the document has nothing for; --empty writes {} for one on purpose', async () => {
    const input = path.join(dir, 'secret.json');
    await writeFile(input, JSON.stringify({ iam: { accessKey: 'AKIA1', secretKey: 'secret-1' } }));
    const refused = await run([input, path.join(dir, 'out'), '--stage=prod', '--offline']);
    expect(refused.code).toBe(1);
    for (const capability of ['catalogue', 'execution', 'webhooks', 'callers']) {
      expect(refused.err).toContain(`has nothing for the ${capability} capability`);
    }
    expect(refused.err).not.toContain('for the signing capability');
    const written = await run([
      input,
      path.join(dir, 'out'),
      '--stage=prod',
      '--offline',
      '--empty=catalogue,execution,webhooks,callers',
    ]);
    expect(written.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(dir, 'out', 'webhooks.json'), 'utf8'))).toEqual({});
    expect((await run([input, path.join(dir, 'o2'), '--empty=nothing'])).code).toBe(2);
  });
});
