/**
 * Every module under functions/ is a Lambda entry point, and its `handler` has the one shape
 * Lambda's Node.js 24 runtime (nodejs24.x) runs: a function of (event, context) that returns a
 * promise. That runtime refuses, at init, a handler that declares a third parameter, the
 * callback (`Runtime.CallbackHandlerDeprecated`): it reads `handler.length`, and lets only a
 * streaming handler (marked with `Symbol.for('aws.lambda.runtime.handler.streaming')`) take more
 * (aws/aws-lambda-nodejs-runtime-interface-client, src/function/callback-deprecation.ts).
 *
 * Each module is loaded as a cold start loads it (a fresh module graph), its export taken as the
 * runtime takes `<file>.handler`, and the export called once with an event it cannot use: it must
 * still answer with a promise (a rejected one is fine), never throw or return a plain value.
 * test/e2e/template.e2e.test.ts checks that every packaged function points at one of these.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LOOPBACK_AWS } from '../helpers/aws.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { lambdaContext } from '../helpers/lambda.ts';
import { emulatorEnv } from '../helpers/platform.ts';

const FUNCTIONS = path.resolve(import.meta.dirname, '../../functions');
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const modules = (await readdir(FUNCTIONS, { recursive: true }))
  .filter((file) => file.endsWith('.ts'))
  .sort();

describe('every function handler, loaded as the Node.js 24 runtime loads it', () => {
  const emulator = emulatorForSuite();
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('finds the function modules', () => {
    expect(modules).toContain('jobs/list.ts');
    expect(modules).toContain('queue/consume.ts');
  });

  it.each(modules)('functions/%s: an async handler(event, context)', async (file) => {
    vi.resetModules();
    // What each kind needs to load: the deployed receiver a queue (closed: nothing is sent to
    // it), the watcher a state file; AWS credentials that lead nowhere.
    const env = emulatorEnv(emulator, {
      ...LOOPBACK_AWS,
      INVOCATION_QUEUE_URL: 'http://127.0.0.1:1/000000000000/invocations.fifo',
      WATCHER_STATE_FILE: path.join(await mkdtemp(path.join(tmpdir(), 'handlers-')), 'state.json'),
    });
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const { handler } = (await import(path.join(FUNCTIONS, file))) as { handler: unknown };

    expect(typeof handler).toBe('function');
    const fn = handler as ((event: unknown, context: unknown) => unknown) & {
      [STREAMING]?: unknown;
    };
    expect(fn[STREAMING]).toBeUndefined();
    expect(fn.length).toBeLessThanOrEqual(2);

    const answer = fn({}, lambdaContext(5000));
    expect(typeof (answer as Promise<unknown> | undefined)?.then).toBe('function');
    await (answer as Promise<unknown>).catch(() => undefined);
  });
});
