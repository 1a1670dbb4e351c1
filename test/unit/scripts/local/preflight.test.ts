/** What npm start checks before it starts serverless offline (scripts/local/preflight.ts). */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRETS_FILE } from '../../../../scripts/local/paths.ts';
import { localConfigurationProblems } from '../../../../scripts/local/preflight.ts';

describe('the local configuration check of npm start', () => {
  let dir: string;
  let demo: { callers: { token: string }[]; iam: Record<string, unknown> };
  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'preflight-'));
    demo = JSON.parse(await readFile(DEMO_SECRETS_FILE, 'utf8'));
  });

  it('passes the bundled demo secret', async () => {
    expect(
      await localConfigurationProblems({ SECRETS_SOURCE: 'file', SECRETS_FILE: DEMO_SECRETS_FILE }),
    ).toEqual([]);
  });

  it('names a missing secret file', async () => {
    const file = path.join(dir, 'nope.json');
    expect(await localConfigurationProblems({ SECRETS_FILE: file })).toEqual([
      `SECRETS_FILE: cannot read the secret file ${file} (no such file)`,
    ]);
  });

  it('names the field of a malformed secret, never its value', async () => {
    const token = 'too-short-a-token';
    const file = await write(
      'short.json',
      JSON.stringify({ ...demo, callers: [{ ...demo.callers[0], token }] }),
    );
    const problems = await localConfigurationProblems({ SECRETS_FILE: file });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/callers\.0\.token: expected a token of at least 32 characters/);
    expect(problems[0]).not.toContain(token);

    const secretKey = 123456789;
    const wrongType = await write(
      'type.json',
      JSON.stringify({ ...demo, iam: { ...demo.iam, secretKey } }),
    );
    const [problem] = await localConfigurationProblems({ SECRETS_FILE: wrongType });
    expect(problem).toMatch(/iam\.secretKey/);
    expect(problem).not.toContain(String(secretKey));

    const notJson = await write('broken.json', '{"iam": ');
    expect(await localConfigurationProblems({ SECRETS_FILE: notJson })).toEqual([
      `SECRETS_FILE: The secret from file ${notJson} is not valid JSON`,
    ]);
  });

  it('names a variable the functions would refuse, never its value', async () => {
    const problems = await localConfigurationProblems({
      SECRETS_FILE: DEMO_SECRETS_FILE,
      UPSTREAM_TIMEOUT_MS: 'soon-ish',
    });
    expect(problems).toEqual([
      'Invalid configuration: UPSTREAM_TIMEOUT_MS: expected a positive integer',
    ]);
  });
});
