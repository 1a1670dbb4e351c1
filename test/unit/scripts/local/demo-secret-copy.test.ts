/**
 * npm start's copy of the demo secret for an emulator on another port
 * (scripts/local/demo-secret-copy.ts). It follows the demo secret while npm start runs, so that a
 * caller added there works on any port.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../../../emulator/index.ts';
import { followedCopy } from '../../../../scripts/local/demo-secret-copy.ts';
import { DEMO_SECRETS_FILE } from '../../../../scripts/local/paths.ts';

const EMULATOR = 'http://127.0.0.1:4999';
const rebased = (text: string) => `${JSON.stringify(demoSecretFor(EMULATOR, text), null, 2)}\n`;

let dir: string;
let source: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'demo-secret-copy-'));
  source = path.join(dir, 'demo-secret.json');
  file = path.join(dir, '.local', 'demo-secret-4999.json');
  await writeFile(source, readFileSync(DEMO_SECRETS_FILE, 'utf8'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const copied = () =>
  JSON.parse(readFileSync(file, 'utf8')) as {
    callers: { id: string }[];
    actions: Record<string, { url: string }>;
  };

describe('the demo secret copy', () => {
  it('names the emulator in every action URL, and follows a caller added to the demo secret', async () => {
    const copy = followedCopy(source, file, rebased, 10);
    try {
      expect(copy.file).toBe(file);
      expect(Object.values(copied().actions).map(({ url }) => new URL(url).origin)).toEqual(
        Object.values(copied().actions).map(() => EMULATOR),
      );
      const secret = JSON.parse(readFileSync(source, 'utf8')) as { callers: unknown[] };
      secret.callers.push({
        id: 'added',
        token: 'a-token-added-while-npm-start-runs',
        scopes: ['*'],
      });
      await writeFile(source, JSON.stringify(secret));
      await vi.waitFor(() => expect(copied().callers.map(({ id }) => id)).toContain('added'));
      expect(Object.values(copied().actions).every(({ url }) => url.startsWith(EMULATOR))).toBe(
        true,
      );
    } finally {
      copy.remove();
    }
  });

  it('copies a demo secret it cannot read as it is, for the functions to refuse as they would refuse it', async () => {
    const copy = followedCopy(source, file, rebased, 10);
    try {
      await writeFile(source, '{"callers": [');
      await vi.waitFor(() => expect(readFileSync(file, 'utf8')).toBe('{"callers": ['));
      // Only the copy is left in its folder: each write replaces it whole.
      expect(await readdir(path.dirname(file))).toEqual([path.basename(file)]);
    } finally {
      copy.remove();
    }
  });

  it('is removed, and follows no more, once removed', async () => {
    const copy = followedCopy(source, file, rebased, 10);
    copy.remove();
    expect(existsSync(file)).toBe(false);
    await writeFile(source, '{}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(file)).toBe(false);
  });
});
