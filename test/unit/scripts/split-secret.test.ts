/**
 * `npm run split-secret`: one document cut into the per-capability documents a split stage
 * reads, each valid as its capability's own secret, written for its owner only.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_CAPABILITIES } from '../../../lib/core/secret-capabilities.js';
import { CAPABILITY_FIELDS, platformSecretSchema } from '../../../lib/secrets/schema.js';
import { parseSecret } from '../../../lib/secrets/store.js';
import { main, splitSecret } from '../../../scripts/split-secret.js';
import { DEMO_SECRET_FILE } from '../../helpers/platform.js';

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
    await expect(split('{"apiKey":"k2"}')).rejects.toMatchObject({ code: 'EEXIST' });
    await split('{"apiKey":"k2"}', { force: true });
    expect(JSON.parse(await readFile(path.join(dir, 'out', 'signing.json'), 'utf8'))).toEqual({
      apiKey: 'k2',
    });
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
  it('prints where each document goes, and how to use it', async () => {
    const lines: string[] = [];
    const code = await main([DEMO_SECRET_FILE, path.join(dir, 'out'), '--stage=qa'], (line) =>
      lines.push(line),
    );
    expect(code).toBe(0);
    expect(lines.join('\n')).toContain(
      `aws secretsmanager put-secret-value --secret-id platform-gateway/qa/callers --secret-string file://${path.join(dir, 'out', 'callers.json')}`,
    );
    const errors: string[] = [];
    expect(
      await main(
        [DEMO_SECRET_FILE],
        () => {},
        (line) => errors.push(line),
      ),
    ).toBe(2);
    expect(
      await main(
        [DEMO_SECRET_FILE, path.join(dir, 'out')],
        () => {},
        (line) => errors.push(line),
      ),
    ).toBe(1);
    expect(errors.at(-1)).toMatch(/exists: remove it, or pass --force$/);
  });
});
