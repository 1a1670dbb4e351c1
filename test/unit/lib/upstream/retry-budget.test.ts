import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../../../lib/core/metrics.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { RetryBudget } from '../../../../lib/upstream/retry-budget.ts';
import { testCall } from '../../../helpers/call-context.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';

describe('RetryBudget', () => {
  it('holds 500 tokens; a retry takes 5, a retry after a timeout 10', () => {
    const budget = new RetryBudget();
    expect(budget.acquire('error')).toBe(5);
    expect(budget.acquire('timeout')).toBe(10);
    expect(budget.available).toBe(485);
  });

  it('refuses a retry it cannot pay for, and takes nothing', () => {
    const budget = new RetryBudget({ capacity: 12 });
    expect(budget.acquire('error')).toBe(5);
    expect(budget.acquire('timeout')).toBeUndefined();
    expect(budget.available).toBe(7);
    expect(budget.acquire('error')).toBe(5);
    expect(budget.acquire('error')).toBeUndefined();
  });

  it('gets back what a successful call retried with, or 1 for a first-time success, up to its size', () => {
    const budget = new RetryBudget({ capacity: 20 });
    budget.acquire('error');
    budget.acquire('error');
    expect(budget.available).toBe(10);
    budget.succeeded(10);
    expect(budget.available).toBe(20);
    budget.succeeded(0);
    expect(budget.available).toBe(20);
    budget.acquire('error');
    budget.succeeded(0);
    expect(budget.available).toBe(16);
  });
});

describe('the upstream client with one retry budget', () => {
  let server: ScriptedServer;
  let dispatcher: Agent;
  let failing = true;
  beforeAll(async () => {
    server = await startScriptedServer((_req, res) =>
      failing ? gatewayError(res, 503, '500') : res.end('{}'),
    );
    dispatcher = new Agent({ connections: 8 });
  });
  afterAll(async () => {
    await dispatcher.close();
    await server.close();
  });

  it('during an outage sends at most 1.1 times the calls, counts refused retries, and recovers without a restart', async () => {
    const budget = new RetryBudget();
    const client = new UpstreamClient({
      dispatcher,
      timeoutMs: 5000,
      random: () => 0,
      retryBudget: budget,
    });
    const metrics = new Metrics();
    const call = () =>
      client
        .send(
          { method: 'GET', url: new URL('/api/v1/jobs', server.url), service: 'scan-jobs' },
          testCall({ metrics }),
        )
        .then((answer) => answer.status);
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++) statuses.push(await call());
    expect(statuses.every((status) => status === 503)).toBe(true);
    // 1,000 callers' calls and the 100 retries 500 tokens pay for (5 each), no more.
    expect(server.received.length).toBeLessThanOrEqual(1100);
    expect(server.received.length).toBeGreaterThanOrEqual(1000);
    expect(budget.available).toBeLessThan(5);
    const refused = metrics
      .take('test')
      .map((document) => document.UpstreamRetriesRefused)
      .filter((value) => value !== undefined);
    expect(refused.reduce((sum: number, value) => sum + Number(value), 0)).toBeGreaterThan(0);

    // The platform recovers: calls succeed at once, and each success refills the budget.
    failing = false;
    server.received.length = 0;
    for (let i = 0; i < 10; i++) expect(await call()).toBe(200);
    expect(server.received).toHaveLength(10);
    expect(budget.available).toBeGreaterThanOrEqual(10);
  });
});
