/**
 * Webhook deliveries end to end: real `serverless offline` (its worker threads, each with its
 * own memory) in front of the embedded emulator, with the delivery ledger in dynalite as
 * `npm start` runs it.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.js';
import { sharedStackForSuite } from '../offline.js';

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

  /** Runs of the demo action with this marker, once the count has stopped moving. */
  async function settledRuns(marker: string): Promise<number> {
    const count = () =>
      emulator.actions
        .activations()
        .filter((a) => a.name === 'hello' && JSON.stringify(a.params).includes(marker)).length;
    let last = -1;
    for (let stable = 0; stable < 3; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = count();
      stable = now === last && now > 0 ? stable + 1 : 0;
      last = now;
    }
    return last;
  }

  it('runs the action once for 20 concurrent identical deliveries', async () => {
    const id = `msg_${randomUUID()}`;
    const marker = randomUUID();
    const body = JSON.stringify({ name: marker });
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(id, body)));
    // Twenty cold workers at once on a small machine: serverless offline may time one out before
    // its function starts. That answer is the 504/510 envelope, and the sender delivers again,
    // as a Standard Webhooks sender does after any 5xx.
    for (const answer of answers.filter((a) => a.status !== 202)) {
      expect(answer.status, offline.output()).toBe(504);
      expect(await answer.json()).toMatchObject({ error: { errorCode: '510' } });
      expect((await deliver(id, body)).status, offline.output()).toBe(202);
    }
    expect(await settledRuns(marker)).toBe(1);
  });

  it('runs it once when the same delivery comes back later, on whichever worker', async () => {
    const id = `msg_${randomUUID()}`;
    const marker = randomUUID();
    const body = JSON.stringify({ name: marker });
    const at = new Date();
    expect((await deliver(id, body, at)).status).toBe(202);
    expect(await settledRuns(marker)).toBe(1);
    for (let i = 0; i < 5; i++) expect((await deliver(id, body, at)).status).toBe(202);
    expect(await settledRuns(marker)).toBe(1);
  });
});
