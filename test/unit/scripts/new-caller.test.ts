/**
 * `npm run new-caller`: a token of 32 random bytes shown once, and an entry holding only its
 * digest, which the secret accepts and the caller check identifies.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { secretCallers } from '../../../lib/http/callers.ts';
import { parseSecret } from '../../../lib/secrets/store.ts';
import { main, newCaller, TOKEN_BYTES } from '../../../scripts/new-caller.ts';
import { httpEvent } from '../../helpers/lambda.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('newCaller', () => {
  it('makes a token of 32 random bytes and an entry with its SHA-256 only', () => {
    const bytes = Buffer.alloc(TOKEN_BYTES, 7);
    const { token, entry } = newCaller({ id: 'reporting', scopes: ['jobs:read'] }, (n) =>
      n === TOKEN_BYTES ? bytes : Buffer.alloc(0),
    );
    expect(token).toBe(bytes.toString('base64url'));
    expect(token).toHaveLength(43);
    expect(entry).toEqual({
      id: 'reporting',
      tokenSha256: createHash('sha256').update(token).digest('hex'),
      scopes: ['jobs:read'],
    });
    expect(JSON.stringify(entry)).not.toContain(token);
  });

  it('never makes a token that starts with "-", which a command line would take for a flag', () => {
    const draws = [Buffer.alloc(TOKEN_BYTES, 0xf8), Buffer.alloc(TOKEN_BYTES, 7)];
    const { token } = newCaller({ id: 'reporting', scopes: ['jobs:read'] }, () => draws.shift()!);
    expect(Buffer.alloc(TOKEN_BYTES, 0xf8).toString('base64url')).toMatch(/^-/);
    expect(token).toBe(Buffer.alloc(TOKEN_BYTES, 7).toString('base64url'));
  });

  it('makes an entry the secret takes, and whose token the caller check knows', async () => {
    const made = newCaller({
      id: 'deploy-bot',
      scopes: ['actions:deploy', 'triggers:*'],
      notAfter: '2027-01-31T00:00:00Z',
    });
    const secret = parseSecret(JSON.stringify({ callers: [made.entry] }));
    const identify = secretCallers({
      load: async () => ({ value: secret, fetchedAt: 0 }),
      maxAgeMs: Number.POSITIVE_INFINITY,
      retryInMs: () => 0,
      now: () => Date.parse('2026-06-01T00:00:00Z'),
    });
    const caller = await identify(httpEvent('jobs-list.json'), {
      authorization: `Bearer ${made.token}`,
    });
    expect(caller).toMatchObject({ id: 'deploy-bot', scopes: ['actions:deploy', 'triggers:*'] });
  });

  it('refuses an id or a scope that the secret would refuse, naming the field', () => {
    expect(() => newCaller({ id: 'a b', scopes: ['jobs:read'] })).toThrow(
      /^Not a valid caller: id:/,
    );
    expect(() => newCaller({ id: 'ok', scopes: ['jobs:*'] })).toThrow(
      /scopes\.0: expected a scope/,
    );
    expect(() => newCaller({ id: 'ok', scopes: ['*'], notAfter: 'tomorrow' })).toThrow(/notAfter/);
  });
});

describe('the command', () => {
  it('prints the token once and the entry to paste', () => {
    const lines: string[] = [];
    expect(main(['reporting', 'jobs:read'], (line) => lines.push(line))).toBe(0);
    const text = lines.join('\n');
    const token = /^ {2}([A-Za-z0-9_-]{43})$/m.exec(text)?.[1];
    expect(token).toBeDefined();
    expect(text.split(token!)).toHaveLength(2);
    expect(text).toContain(
      `{"id":"reporting","tokenSha256":"${createHash('sha256').update(token!).digest('hex')}","scopes":["jobs:read"]}`,
    );
  });

  it('says what is wrong and how to use it when an argument is missing or unknown', () => {
    for (const [args, said] of [
      [[], 'an id and at least one scope are needed'],
      [['only-an-id'], 'an id and at least one scope are needed'],
      [['id', 'jobs:read', '--force'], "Unknown option '--force'"],
    ] as const) {
      const errors: string[] = [];
      expect(
        main(
          args,
          () => {},
          (line) => errors.push(line),
        ),
      ).toBe(2);
      expect(errors[0]).toContain(said);
      expect(errors.slice(1).every((line) => line.startsWith('usage: npm run new-caller'))).toBe(
        true,
      );
    }
  });

  it('takes --not-after <date> and --not-after=<date> alike', () => {
    for (const args of [
      ['bot', 'jobs:read', '--not-after', '2027-01-31T00:00:00Z', '--json'],
      ['bot', 'jobs:read', '--not-after=2027-01-31T00:00:00Z', '--json'],
    ]) {
      const lines: string[] = [];
      expect(main(args, (line) => lines.push(line))).toBe(0);
      expect((JSON.parse(lines[0]!) as { entry: { notAfter: string } }).entry.notAfter).toBe(
        '2027-01-31T00:00:00Z',
      );
    }
  });

  it('runs as npm runs it, with --json', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/new-caller.ts', 'bot', 'actions:echo', '--json'],
      { cwd: ROOT },
    );
    const made = JSON.parse(stdout) as { token: string; entry: { tokenSha256: string } };
    expect(made.entry.tokenSha256).toBe(createHash('sha256').update(made.token).digest('hex'));
  });
});
