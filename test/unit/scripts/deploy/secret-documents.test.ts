/**
 * A stage's secret documents as a deploy needs them (scripts/deploy/secret-documents.ts): the
 * functions' own validation, every capability present, and in every stage, `dev` included,
 * nothing published in this repository, no caller token in plain text, no action URL but https on
 * a public host (a rehearsal's stand-ins excepted). Each problem names the document and the
 * field, never a value.
 */
import { hash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  documentFileOf,
  documentProblems,
  type SecretStage,
  stageSecrets,
  standInOf,
} from '../../../../scripts/deploy/secret-documents.ts';
import { DEMO_SECRET_FILE } from '../../../helpers/platform.ts';

const demo = JSON.parse(readFileSync(DEMO_SECRET_FILE, 'utf8'));
const prod: SecretStage = { stage: 'prod', standIn: false, jwt: false };
const token = randomBytes(32).toString('base64url');
const digest = hash('sha256', token, 'hex');
const whsec = `whsec_${randomBytes(32).toString('base64')}`;
const text = (value: unknown) => JSON.stringify(value);

describe('stageSecrets', () => {
  it("groups the capabilities by the secret each is read from, as the stage's environment names them", () => {
    const split = stageSecrets({
      SECRET_ID: '',
      SIGNING_SECRET_ID: 'gw/prod/signing',
      CATALOGUE_SECRET_ID: 'gw/prod/catalogue',
      EXECUTION_SECRET_ID: 'gw/prod/execution',
      WEBHOOKS_SECRET_ID: 'gw/prod/webhooks',
      CALLERS_SECRET_ID: 'gw/prod/callers',
    });
    expect(split.map((secret) => [secret.id, documentFileOf(secret)])).toEqual([
      ['gw/prod/signing', 'signing.json'],
      ['gw/prod/catalogue', 'catalogue.json'],
      ['gw/prod/execution', 'execution.json'],
      ['gw/prod/webhooks', 'webhooks.json'],
      ['gw/prod/callers', 'callers.json'],
    ]);
    const single = stageSecrets({ SECRET_ID: 'gw/prod/platform', WEBHOOKS_SECRET_ID: 'hooks' });
    expect(single).toEqual([
      { id: 'gw/prod/platform', capabilities: ['signing', 'catalogue', 'execution', 'callers'] },
      { id: 'hooks', capabilities: ['webhooks'] },
    ]);
    expect(documentFileOf(single[0]!)).toBe('platform.json');
  });
});

describe('documentProblems', () => {
  it('passes a document a deployed stage can use', () => {
    const callers = text({
      callers: [{ id: 'reporting', tokenSha256: digest, scopes: ['jobs:read'] }],
    });
    expect(documentProblems(callers, 'callers.json', ['callers'], prod)).toEqual([]);
    const hooks = text({ webhooks: { github: { secret: whsec, action: 'hello' } } });
    expect(documentProblems(hooks, 'webhooks.json', ['webhooks'], prod)).toEqual([]);
    // A capability the stage does not use: an empty document.
    expect(documentProblems('{}', 'webhooks.json', ['webhooks'], prod)).toEqual([]);
  });

  it('names a missing document, with what it must hold, and none a JWT stage does not read', () => {
    const [line] = documentProblems(undefined, 'secrets/webhooks.json', ['webhooks'], prod);
    expect(line).toMatch(
      /^secrets\/webhooks\.json is missing, but every capability's secret must exist/,
    );
    expect(line).toContain('write {} in it');
    expect(
      documentProblems(undefined, 'callers.json', ['callers'], { ...prod, jwt: true }),
    ).toEqual([]);
  });

  it('refuses what the functions refuse, naming the field and never its value, in any stage', () => {
    const short = 'a-token-too-short-to-be-safe';
    for (const stage of ['dev', 'prod']) {
      const [line, ...rest] = documentProblems(
        text({ callers: [{ id: 'x', token: short, scopes: ['*'] }] }),
        'callers.json',
        ['callers'],
        { ...prod, stage },
      );
      expect(rest).toEqual([]);
      expect(line).toContain('callers.0.token: expected a token of at least 32 characters');
      expect(line).not.toContain(short);
    }
    // A field of another capability, in a capability's own secret.
    expect(
      documentProblems(text({ apiKey: 'k' }), 'webhooks.json', ['webhooks'], prod)[0],
    ).toContain('apiKey: not allowed here');
  });

  it('refuses every credential of the demo secret and plain tokens, naming each field', () => {
    const lines = [
      ...documentProblems(text({ callers: demo.callers }), 'callers.json', ['callers'], prod),
      ...documentProblems(text({ webhooks: demo.webhooks }), 'webhooks.json', ['webhooks'], prod),
      ...documentProblems(
        text({ iam: demo.iam, apiKey: demo.apiKey }),
        'signing.json',
        ['signing'],
        prod,
      ),
      ...documentProblems(
        text({ actions: demo.actions, triggers: demo.triggers }),
        'execution.json',
        ['execution'],
        prod,
      ),
    ];
    expect(lines.filter((line) => line.includes("a demo caller's token"))).toHaveLength(
      demo.callers.length,
    );
    expect(
      lines.some((line) => line.includes("webhooks.demo.secret is the demo webhook's secret")),
    ).toBe(true);
    expect(lines.some((line) => line.includes("iam.secretKey is the emulator's demo value"))).toBe(
      true,
    );
    expect(
      lines.some((line) =>
        line.includes('actions.hello.url is a plain http:// URL on this machine'),
      ),
    ).toBe(true);
    const all = lines.join('\n');
    for (const secret of [demo.iam.secretKey, demo.webhooks.demo.secret, demo.callers[0].token]) {
      expect(all).not.toContain(secret);
    }
    // A demo token held by its digest is a demo token all the same.
    const byDigest = text({
      callers: [
        { id: 'demo', tokenSha256: hash('sha256', demo.callers[0].token, 'hex'), scopes: ['*'] },
      ],
    });
    expect(documentProblems(byDigest, 'callers.json', ['callers'], prod)[0]).toContain(
      "a demo caller's token",
    );
    // A token of its own, in plain text: stored as its digest instead.
    const plain = text({ callers: [{ id: 'reporting', token, scopes: ['jobs:read'] }] });
    const [line] = documentProblems(plain, 'callers.json', ['callers'], prod);
    expect(line).toContain('callers.0 (reporting) holds its token in plain text');
    expect(line).toContain('tokenSha256');
    expect(line).not.toContain(token);
    expect(
      documentProblems(text({ callerTokens: [token] }), 'callers.json', ['callers'], prod)[0],
    ).toContain('callerTokens holds tokens in plain text');
  });

  it('in dev as in prod, refuses the demo tokens, the demo webhook secret and a token in plain text', () => {
    const dev = { ...prod, stage: 'dev' };
    const lines = [
      ...documentProblems(text({ callers: demo.callers }), 'callers.json', ['callers'], dev),
      ...documentProblems(text({ webhooks: demo.webhooks }), 'webhooks.json', ['webhooks'], dev),
    ];
    expect(lines).toContainEqual(
      expect.stringContaining("callers.json: callers.0 (demo) holds a demo caller's token"),
    );
    expect(lines).toContainEqual(
      expect.stringContaining("webhooks.json: webhooks.demo.secret is the demo webhook's secret"),
    );
    const plain = text({ callers: [{ id: 'reporting', token, scopes: ['jobs:read'] }] });
    expect(documentProblems(plain, 'callers.json', ['callers'], dev)).toEqual([
      expect.stringContaining('callers.0 (reporting) holds its token in plain text'),
    ]);
    // Its platform keys and loopback URLs: only a rehearsal's stand-ins take them.
    expect(documentProblems(text({ iam: demo.iam }), 'signing.json', ['signing'], dev)).toEqual([
      expect.stringContaining("iam.accessKey is the emulator's demo value"),
      expect.stringContaining("iam.secretKey is the emulator's demo value"),
    ]);
  });

  it('on stand-ins of the platform and AWS, takes the demo keys and loopback URLs but not its tokens', () => {
    const standIn = { ...prod, standIn: true };
    expect(documentProblems(text({ iam: demo.iam }), 'signing.json', ['signing'], standIn)).toEqual(
      [],
    );
    expect(
      documentProblems(text({ actions: demo.actions }), 'execution.json', ['execution'], standIn),
    ).toEqual([]);
    expect(
      documentProblems(text({ callers: demo.callers }), 'callers.json', ['callers'], standIn),
    ).not.toEqual([]);
  });
});

describe('the platform on this machine', () => {
  it('refuses an action or trigger URL that is not https on a public host, naming the field', () => {
    const execution = text({
      actions: {
        local: { url: 'https://localhost:8443/hello' },
        lan: { url: 'https://10.0.0.7/hello' },
        metadata: { url: 'https://169.254.169.254/latest' },
        public: { url: 'https://api.example.com/fx7h2k/prod/hello' },
      },
      triggers: { loop: { url: 'http://127.0.0.1:4010/nightly' } },
    });
    const lines = documentProblems(execution, 'execution.json', ['execution'], prod);
    expect(lines).toEqual([
      expect.stringContaining('execution.json: actions.local.url is not on a public host'),
      expect.stringContaining('execution.json: actions.lan.url is not on a public host'),
      expect.stringContaining('execution.json: actions.metadata.url is not on a public host'),
      expect.stringContaining(
        'execution.json: triggers.loop.url is a plain http:// URL on this machine',
      ),
    ]);
    expect(lines.join('\n')).not.toMatch(/10\.0\.0\.7|169\.254/);
  });

  it('is a stand-in only when the deploy goes to a stand-in AWS on this machine too', () => {
    const local = 'http://127.0.0.1:4010';
    const aws = { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' };
    expect(standInOf(local, 'http://localhost:4010', aws)).toBe(true);
    expect(standInOf(local, local, { AWS_ENDPOINT_URL: 'http://[::1]:5000' })).toBe(true);
    // A leftover export of a local run, deployed to AWS itself.
    expect(standInOf(local, local, {})).toBe(false);
    expect(standInOf(local, local, { AWS_ENDPOINT_URL: 'https://aws.example.com' })).toBe(false);
    // One service of the deploy sent elsewhere is no stand-in AWS.
    expect(
      standInOf(local, local, { ...aws, AWS_ENDPOINT_URL_S3: 'https://s3.amazonaws.com' }),
    ).toBe(false);
    expect(standInOf(local, local, { ...aws, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).toBe(
      false,
    );
    expect(standInOf('https://wsc.apigw.example.com', local, aws)).toBe(false);
  });
});
