import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../../../lib/core/errors.ts';
import { errorEnvelope } from '../../../../../lib/http/middleware/error-envelope.ts';
import { requestLog } from '../../../../../lib/http/middleware/request-log.ts';
import { json } from '../../../../../lib/http/responses.ts';
import { ownStack, stateOf } from './own-stack.ts';

describe('requestLog', () => {
  it('writes one line per answered request: method, route, status, duration, targets', async () => {
    const { state, logged } = stateOf();
    await ownStack([requestLog('searchJobs')], async (s) => {
      s.target({ jobIds: ['2810001', '2810002'], action: 'hello' });
      return json(200, {});
    })(state);
    const lines = logged();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      message: 'request',
      method: 'POST',
      route: 'POST /jobs/search',
      status: 200,
      jobIds: ['2810001', '2810002'],
      action: 'hello',
    });
    expect(typeof lines[0].durationMs).toBe('number');
  });

  it("carries the request's own metrics on its line, with the function as their dimension", async () => {
    const { state, logged } = stateOf();
    await ownStack([requestLog('searchJobs')], async (s) => {
      s.metrics.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
      return json(200, {});
    })(state);
    expect(logged()).toEqual([
      expect.objectContaining({
        message: 'request',
        Function: 'searchJobs',
        Service: 'scan-jobs',
        UpstreamCalls: 1,
        _aws: expect.objectContaining({ CloudWatchMetrics: [expect.any(Object)] }),
      }),
    ]);
    // Taken: nothing is left for another line to carry.
    expect(state.metrics.take('searchJobs')).toEqual([]);
  });

  it('writes the line of a failed request too, as an error when the answer is a 5xx', async () => {
    for (const [status, level, message] of [
      [404, 'info', 'request'],
      [503, 'error', 'request failed'],
    ] as const) {
      const { state, logged } = stateOf();
      const result = await ownStack([requestLog('searchJobs'), errorEnvelope()], async () => {
        throw new ServiceError({ status, code: '300', message: 'x' });
      })(state);
      expect(result.statusCode).toBe(status);
      expect(logged().filter((line) => line.route)).toEqual([
        expect.objectContaining({ level, message, status }),
      ]);
    }
  });

  it('names no targets when the handler named none', async () => {
    const { state, logged } = stateOf();
    await ownStack([requestLog('searchJobs')])(state);
    expect(Object.keys(logged()[0]).sort()).not.toContain('jobIds');
  });
});
