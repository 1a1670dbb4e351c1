/**
 * Webhook deliveries end to end: real `serverless offline` (its worker threads, each with its
 * own memory) in front of the embedded emulator, with the delivery ledger in dynalite as
 * `npm start` runs it.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.ts';
import { sharedStackForSuite } from '../offline.ts';

describe('webhook deliveries through serverless offline', () => {
  // The demo secret with this emulator's URLs, so that the webhook's action runs on it.
  const { emulator, offline } = sharedStackForSuite();
  const webhookSecret = () =>
    (demoSecretFor(emulator.url) as { webhooks: Record<string, { secret: string }> }).webhooks.demo!
      .secret;

  function deliver(id: string, body: string, at = new Date()) {
    return fetch(`${offline.baseUrl}/webhooks/demo`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(webhookSecret()).sign(id, at, body),
      },
      body,
    });
  }

  /** Runs of the demo action with this marker. */
  const runs = (marker: string) =>
    emulator.actions
      .activations()
      .filter((a) => a.name === 'hello' && JSON.stringify(a.params).includes(marker)).length;

  /**
   * Runs of the demo action with this marker once the consumer has taken `copies` copies of the
   * delivery: each copy it takes ends in one `invocation` line, whatever it decided (run, a
   * duplicate, running elsewhere), written after the action's run, so no run of a copy the
   * receiver accepted is still to come.
   */
  async function runsOnceTaken(id: string, marker: string, copies: number): Promise<number> {
    const taken = () =>
      offline
        .output()
        .split('\n')
        .filter((line) => line.includes('"message":"invocation"') && line.includes(`"${id}"`))
        .length;
    await vi.waitFor(() => expect(taken(), offline.output()).toBeGreaterThanOrEqual(copies), {
      timeout: 30_000,
      interval: 50,
    });
    return runs(marker);
  }

  it('runs the action once for 20 concurrent identical deliveries', async () => {
    const id = `msg_${randomUUID()}`;
    const marker = randomUUID();
    const body = JSON.stringify({ name: marker });
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(id, body)));
    let accepted = answers.filter((a) => a.status === 202).length;
    // Twenty cold workers at once on a small machine: serverless offline may time one out before
    // its function starts. That answer is the 504/510 envelope, and the sender delivers again,
    // as a Standard Webhooks sender does after any 5xx.
    for (const answer of answers.filter((a) => a.status !== 202)) {
      expect(answer.status, offline.output()).toBe(504);
      expect(await answer.json()).toMatchObject({ error: { errorCode: '510' } });
      expect((await deliver(id, body)).status, offline.output()).toBe(202);
      accepted += 1;
    }
    expect(await runsOnceTaken(id, marker, accepted)).toBe(1);
  });

  it('runs it once when the same delivery comes back later, on whichever worker', async () => {
    const id = `msg_${randomUUID()}`;
    const marker = randomUUID();
    const body = JSON.stringify({ name: marker });
    const at = new Date();
    expect((await deliver(id, body, at)).status).toBe(202);
    expect(await runsOnceTaken(id, marker, 1)).toBe(1);
    for (let i = 0; i < 5; i++) expect((await deliver(id, body, at)).status).toBe(202);
    expect(await runsOnceTaken(id, marker, 6)).toBe(1);
  });
});
