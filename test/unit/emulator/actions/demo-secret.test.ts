import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../../../emulator/index.ts';
import { platformSecretSchema } from '../../../../lib/secrets/schema.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';

const bundled = JSON.parse(
  readFileSync(new URL('../../../../emulator/demo-secret.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

interface Entry {
  url: string;
  web?: boolean;
  apiKey?: string;
}

describe('demoSecretFor', () => {
  const emulator = emulatorForSuite();

  it('moves every action and trigger URL onto the given emulator, keeping its path', () => {
    const secret = demoSecretFor('http://127.0.0.1:5123');

    expect(secret.actions?.['hello']?.url).toBe('http://127.0.0.1:5123/fx7h2k/demo/hello');
    expect(secret.actions?.['echo']).toEqual({
      url: 'http://127.0.0.1:5123/fx7h2k/demo/echo',
      web: true,
    });
    expect(secret.triggers?.['nightly']?.url).toBe('http://127.0.0.1:5123/fx7h2k/demo/nightly');
    for (const entry of [
      ...Object.values(secret.actions ?? {}),
      ...Object.values(secret.triggers ?? {}),
    ]) {
      expect(entry.url.startsWith('http://127.0.0.1:5123/fx7h2k/demo/')).toBe(true);
    }
  });

  it('keeps every other field of the bundled secret unchanged', () => {
    const secret = demoSecretFor('http://localhost:4999/');
    const { actions: _a, triggers: _t, ...rest } = secret;
    const { actions: _ba, triggers: _bt, ...bundledRest } = bundled;

    expect(rest).toEqual(bundledRest);
    expect(secret.actions?.['keyed']).toEqual({
      url: 'http://localhost:4999/fx7h2k/demo/keyed',
      web: false,
      apiKey: 'demo-gateway-api-key',
    });
  });

  it('is the bundled secret itself for the default emulator address', () => {
    expect(demoSecretFor('http://127.0.0.1:4010')).toEqual(bundled);
  });

  it('refuses a malformed address', () => {
    expect(() => demoSecretFor('not a url')).toThrow();
  });

  it("passes the package's secret schema", () => {
    const parsed = platformSecretSchema.safeParse(demoSecretFor(emulator.url));
    expect(parsed.success).toBe(true);
  });

  it('names actions and triggers the emulator really serves, as web or not and keyed as said', async () => {
    const secret = demoSecretFor(emulator.url);
    const actions = Object.entries(secret.actions ?? {}) as [string, Entry][];
    const headersOf = (entry: Entry): Record<string, string> =>
      entry.apiKey ? { 'x-platform-apigw-api-key': entry.apiKey } : {};

    expect(actions.map(([name]) => name).sort()).toEqual([
      'echo',
      'fail',
      'hello',
      'keyed',
      'slow',
    ]);
    for (const [, entry] of actions) {
      // A GET reaches only a web action; a non-web resource defines POST only.
      const get = await fetch(entry.url, { headers: headersOf(entry) });
      expect(get.status).toBe(entry.web ? 200 : 404);
      const post = await fetch(`${entry.url}?blocking=false`, {
        method: 'POST',
        headers: headersOf(entry),
      });
      expect(post.status).toBe(entry.web ? 200 : 202);
    }
    const triggers = Object.values(secret.triggers ?? {}) as Entry[];
    const fired = await Promise.all(triggers.map((entry) => fetch(entry.url, { method: 'POST' })));
    expect(fired.map((response) => response.status).sort()).toEqual([202, 204]);
  });

  it('has a webhook that runs the hello action, with a whsec_ secret of 24 bytes', () => {
    const webhooks = bundled['webhooks'] as Record<string, { secret: string; action: string }>;

    expect(webhooks['demo']?.action).toBe('hello');
    const key = Buffer.from(webhooks['demo']?.secret.replace(/^whsec_/, '') ?? '', 'base64');
    expect(key).toHaveLength(24);
  });

  it('refuses keyed without its API key', async () => {
    const keyed = demoSecretFor(emulator.url).actions?.['keyed'] as Entry;

    expect((await fetch(keyed.url, { method: 'POST' })).status).toBe(401);
  });
});
