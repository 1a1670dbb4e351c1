/**
 * `npm start` (scripts/start.ts) before serverless offline starts: its arguments, and a port
 * already taken, each said in one line. (Started whole, with serverless offline, and stopped
 * with Ctrl-C: the last block of test/e2e/template.e2e.test.ts.)
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/local/args.ts';
import { findFreePort } from '../../../scripts/local/ports.ts';
import { startArgs } from '../../../scripts/start.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** scripts/start.ts with these settings and arguments: its exit code and what it printed. */
async function start(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['scripts/start.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('npm start -- --param', () => {
  it('takes stage parameters as serverless does, a value keeping its =', () => {
    expect(
      startArgs([
        '--param',
        'corsAllowedOrigins=https://app.example.com',
        '--param=logLevel=debug',
        '--param=alarmTopicArn=arn:aws:sns:eu-west-1:1:a=b',
      ]),
    ).toEqual([
      'corsAllowedOrigins=https://app.example.com',
      'logLevel=debug',
      'alarmTopicArn=arn:aws:sns:eu-west-1:1:a=b',
    ]);
    expect(startArgs([])).toEqual([]);
  });

  it('refuses an unknown parameter with the known ones, and any other argument', () => {
    expect(() => startArgs(['--param', 'corsOrigins=https://app.example.com'])).toThrow(
      /^--param corsOrigins: no such stage parameter; serverless.yml's are .*corsAllowedOrigins/,
    );
    expect(() => startArgs(['--port', '3000'])).toThrow(UsageError);
    expect(() => startArgs(['extra'])).toThrow(new UsageError('unknown argument: extra'));
  });

  it('says so with its usage line, and exits 2, before it starts anything', {
    timeout: 30_000,
  }, async () => {
    const { code, stdout, stderr } = await start({}, ['--param', 'nosuch=1']);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^Node v\S+ runs the local stack/);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^--param nosuch: no such stage parameter; serverless.yml's are /),
      'usage: npm start [-- --param "<name>=<value>" ...]',
    ]);
  });
});

describe('npm start on a port already taken', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it('says which, in one line, and exits 1: EMULATOR_PORT', { timeout: 30_000 }, async () => {
    const { code, stderr } = await start({
      PORT: String(await findFreePort()),
      EMULATOR_PORT: String(port),
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `npm start failed: Port ${port} is already in use on 127.0.0.1; choose another EMULATOR_PORT.`,
    );
  });

  it('says which, in one line, and exits 1: PORT', { timeout: 60_000 }, async () => {
    const { code, stderr } = await start({
      PORT: String(port),
      EMULATOR_PORT: String(await findFreePort()),
      HAND_OFF_PORT: String(await findFreePort()),
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `npm start failed: Port ${port} is already in use on 127.0.0.1; choose another PORT.`,
    );
  });
});
