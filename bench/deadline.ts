/**
 * Section 3 of `npm run bench`, the upstream client: its cost per request over a bare undici
 * request (the deadline, the bounded read, the retry decision, the metric count), and how far
 * past a deadline an answer comes, against the neutral upstream.
 */
import { createServer as createHttpServer } from 'node:http';
import { Agent } from 'undici';
import { median, startNeutralUpstream, timeSequential } from './harness.ts';

/** `pin` (--pin): the neutral upstream on core 1. */
export async function benchDeadline(pin: boolean): Promise<void> {
  const { UpstreamClient } = await import('../lib/upstream/client.ts');
  const { Metrics } = await import('../lib/core/metrics.ts');
  const { createLogger } = await import('../lib/core/log.ts');
  // One call context, as a request of the package has: its metrics are taken between rounds.
  const call = { metrics: new Metrics(), log: createLogger({}, () => {}) };
  const { port, child } = await startNeutralUpstream(pin);
  try {
    const agent = new Agent({ keepAliveTimeout: 4000, connections: 64 });
    const origin = `http://127.0.0.1:${port}`;
    const plain = async () => {
      const answer = await agent.request({ origin, path: '/x', method: 'GET' });
      await answer.body.arrayBuffer();
    };
    // The same request through the upstream client: its deadline (one native timer), the body
    // collected up to its limit, the retry decision and the metric count.
    const viaClient = new UpstreamClient({ dispatcher: agent, timeoutMs: 8000 });
    const target = new URL('/x', origin);
    const withClient = async () => {
      await viaClient.send({ method: 'GET', url: target, service: 'bench' }, call);
    };
    await timeSequential(plain, 500);
    await timeSequential(withClient, 500);
    const plainTimes: number[] = [];
    const clientTimes: number[] = [];
    for (let round = 0; round < 7; round++) {
      plainTimes.push(...(await timeSequential(plain, 500)).perRequestMs);
      clientTimes.push(...(await timeSequential(withClient, 500)).perRequestMs);
      // Counted metrics are written by the function at the end of each invocation.
      call.metrics.take('bench');
    }
    await agent.close();

    // Overshoot: an upstream that never answers, a 500 ms deadline, 20 calls.
    const silent = createHttpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const dispatcher = new Agent();
    const client = new UpstreamClient({ dispatcher, timeoutMs: 500 });
    const overshoot: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await client
        .send({ method: 'GET', url: new URL(`http://127.0.0.1:${silentPort}/never`) }, call)
        .catch(() => undefined);
      overshoot.push(performance.now() - start - 500);
    }
    await dispatcher.destroy();
    silent.close();

    console.info(
      '\n3. The upstream client and its deadline (neutral loopback upstream in its own process)',
    );
    console.info(
      `   cost per request, c=1, 3500 requests each: bare undici request ${median(plainTimes).toFixed(3)} ms, ` +
        `through the client ${median(clientTimes).toFixed(3)} ms ` +
        `(+${((median(clientTimes) - median(plainTimes)) * 1000).toFixed(1)} µs)`,
    );
    console.info(
      `   overshoot past a 500 ms deadline, upstream silent, 20 calls: median ${median(overshoot).toFixed(1)} ms, ` +
        `max ${Math.max(...overshoot).toFixed(1)} ms`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}
