/**
 * The scan job client, wired as a container wires it, against the emulator: its gateway checks
 * every signature, and records what each call sent.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { UnexpectedError, UpstreamError } from '../../../../lib/core/errors.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import {
  ScanJobsClient,
  scanJobsClientOf,
  signingKeysFrom,
} from '../../../../lib/scan-jobs/client.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../lib/upstream/dispatch.ts';
import { testCall } from '../../../helpers/call-context.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { DEMO_SECRET_FILE, emulatorEnv } from '../../../helpers/platform.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';

const quiet = createLogger({}, () => {});
const body = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

describe('ScanJobsClient against the emulator', () => {
  const emulator = emulatorForSuite();
  const client = () =>
    scanJobsClientOf(createRuntime(loadConfig(emulatorEnv(emulator)), { log: quiet }));

  it('lists a page of jobs with a signed GET, the page and limit in its query', async () => {
    const answer = await client().list({ page: 2, limit: 5 }, testCall());
    expect(answer.status).toBe(200);
    expect(body(answer).resources.record_data).toHaveLength(5);
    const [sent] = emulator.requests;
    expect(sent).toMatchObject({ method: 'GET', url: '/api/v1/jobs?page=2&limit=5' });
    expect(sent?.headers['x-platform-apigw-signature-v2']).toBeTruthy();
    expect(sent?.headers['x-platform-iam-access-key']).toBe('DEMOACCESSKEY0000001');
  });

  it('searches with a JSON body, and sends a search again after a 503: it only reads', async () => {
    emulator.faults.add({ kind: 'status', status: 503, errorCode: '500' });
    const criteria = {
      searchType: 'memo' as const,
      searchKeyword: 'weekend scan',
      statusCode: null,
      limit: 10,
      page: 1,
    };
    const answer = await client().search(criteria, testCall());
    expect(answer.status).toBe(200);
    expect(answer.attempts).toBe(2);
    expect(
      body(answer).resources.record_data.map((j: { instanceNo: string }) => j.instanceNo),
    ).toEqual(['2810025', '2810023', '2810020']);
    expect(emulator.requests.map((r) => [r.method, r.url])).toEqual([
      ['POST', '/api/v1/jobs/search'],
      ['POST', '/api/v1/jobs/search'],
    ]);
    expect(JSON.parse(emulator.requests[1]?.body ?? '')).toEqual(criteria);
  });

  it('cancels and stops with a PATCH each, never sent twice', async () => {
    emulator.faults.add({ kind: 'status', status: 503, errorCode: '500' });
    await expect(client().cancel('2810017', testCall())).rejects.toBeInstanceOf(UpstreamError);
    expect(emulator.requests).toHaveLength(1);
    expect((await client().cancel('2810017', testCall())).status).toBe(200);
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Cancel');
    expect((await client().stop('2810016', testCall())).status).toBe(200);
    expect(emulator.scanJobs.get('2810016')?.status).toBe('Stop');
    expect(emulator.requests.map((r) => [r.method, r.url])).toEqual([
      ['PATCH', '/api/v1/jobs/2810017/cancel'],
      ['PATCH', '/api/v1/jobs/2810017/cancel'],
      ['PATCH', '/api/v1/jobs/2810016/stop'],
    ]);
  });

  it("gets a job's report", async () => {
    const answer = await client().report('2810001', testCall());
    expect(answer.status).toBe(200);
    expect(emulator.requests[0]).toMatchObject({
      method: 'GET',
      url: '/api/v1/jobs/2810001/report',
    });
  });

  it('sends no call for a job id outside the id pattern', async () => {
    for (const id of ['../2810001', '2810001/stop', 'a.b', '']) {
      const jobs = client();
      for (const send of [jobs.cancel, jobs.stop, jobs.report]) {
        const sent = (async () => send.call(jobs, id, testCall()))();
        await expect(sent).rejects.toBeInstanceOf(UnexpectedError);
      }
    }
    expect(emulator.requests).toHaveLength(0);
  });

  it("answers the gateway's refusal as an upstream error", async () => {
    const answer = client().list({ page: 1, limit: 1000 }, testCall());
    await expect(answer).rejects.toMatchObject({ status: 400, code: '901' });
  });
});

describe('ScanJobsClient wiring', () => {
  it('is one client per container', () => {
    const runtime = createRuntime(loadConfig({ SCAN_BASE_URL: 'https://scan.example.com' }), {
      log: quiet,
    });
    expect(scanJobsClientOf(runtime)).toBe(scanJobsClientOf(runtime));
  });

  it('needs SCAN_BASE_URL when deployed', () => {
    const deployed = createRuntime(
      loadConfig({
        AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-listJobs',
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: DEMO_SECRET_FILE,
      }),
      { log: quiet },
    );
    expect(() => scanJobsClientOf(deployed)).toThrow(
      'Invalid configuration: SCAN_BASE_URL: required when deployed',
    );
  });

  it("walks with the platform's default page and one call at a time unless configured", () => {
    const plain = new ScanJobsClient({
      baseUrl: new URL('https://scan.example.com'),
      vendor: 'platform',
      credentials: signingKeysFrom(new SecretStore(memorySecretSource({}).source, { ttlMs: 1 })),
      http: new UpstreamClient({ dispatcher: createDispatcher(), timeoutMs: 1000 }),
    });
    expect(plain.bulk).toEqual({ pageSize: 20, pageConcurrency: 1, cancelConcurrency: 1 });
  });
});

describe('signingKeysFrom', () => {
  it("gives the secret's IAM keys, with the gateway API key when it has one", async () => {
    const { source } = memorySecretSource({
      iam: { accessKey: 'AK', secretKey: 'SK' },
      apiKey: 'gateway-key',
    });
    const keys = signingKeysFrom(new SecretStore(source, { ttlMs: 60_000 }));
    expect(await keys.get()).toEqual({ accessKey: 'AK', secretKey: 'SK', apiKey: 'gateway-key' });
  });

  it('refuses a secret without IAM keys with a 500/900, naming nothing of it', async () => {
    const { source } = memorySecretSource({ apiKey: 'gateway-key' });
    const keys = signingKeysFrom(new SecretStore(source, { ttlMs: 60_000 }));
    await expect(keys.get()).rejects.toMatchObject({ status: 500, code: '900' });
  });
});
