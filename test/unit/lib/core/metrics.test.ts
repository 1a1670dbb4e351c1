import { describe, expect, it } from 'vitest';
import { METRIC_NAMESPACE, Metrics } from '../../../../lib/core/metrics.ts';

describe('metrics in CloudWatch embedded metric format', () => {
  it('sums each metric per set of dimensions, in as few documents as the values allow, then starts afresh', () => {
    const metrics = new Metrics();
    metrics.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
    metrics.count('UpstreamCalls', { Outcome: 'success', Service: 'scan-jobs' });
    metrics.count('UpstreamRetries', { Service: 'scan-jobs' }, 3);
    metrics.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'timeout' });
    const documents = metrics.take('listJobs');
    // The retries share the successes' document (their dimensions agree); the timeouts cannot
    // (Outcome would need two values, UpstreamCalls two sums).
    expect(documents).toHaveLength(2);
    const [shared, timeouts] = documents;
    expect(shared).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [['Function', 'Service', 'Outcome']],
            Metrics: [{ Name: 'UpstreamCalls', Unit: 'Count' }],
          },
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [['Function', 'Service']],
            Metrics: [{ Name: 'UpstreamRetries', Unit: 'Count' }],
          },
        ],
      },
      Function: 'listJobs',
      Service: 'scan-jobs',
      Outcome: 'success',
      UpstreamCalls: 2,
      UpstreamRetries: 3,
    });
    expect(timeouts).toMatchObject({ Outcome: 'timeout', UpstreamCalls: 1 });
    expect(timeouts).not.toHaveProperty('UpstreamRetries');
    expect(metrics.take('listJobs')).toEqual([]);
  });

  it('gives every metric the values its own dimensions declare', () => {
    const metrics = new Metrics();
    // Whatever the packing, each directive's dimensions and metrics read back the counted sums.
    metrics.count('UpstreamCalls', { Service: 'nmt', Outcome: 'success' });
    metrics.count('UpstreamCalls', { Service: 'tts', Outcome: 'success' });
    metrics.count('UpstreamTimeouts', { Service: 'tts' });
    metrics.count('WebhookDuplicates', {});
    const sums = new Map<string, number>();
    for (const document of metrics.take('fn')) {
      const aws = document._aws as {
        CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[];
      };
      for (const directive of aws.CloudWatchMetrics) {
        const where = directive.Dimensions[0]!.map((name) => `${name}=${String(document[name])}`);
        for (const { Name } of directive.Metrics)
          sums.set(`${Name} ${where.join(',')}`, document[Name] as number);
      }
    }
    expect(Object.fromEntries(sums)).toEqual({
      'UpstreamCalls Function=fn,Service=nmt,Outcome=success': 1,
      'UpstreamCalls Function=fn,Service=tts,Outcome=success': 1,
      'UpstreamTimeouts Function=fn,Service=tts': 1,
      'WebhookDuplicates Function=fn': 1,
    });
  });

  it("keeps each invocation's counts to itself", () => {
    // Two invocations of one process, counting at once (Lambda Managed Instances).
    const first = new Metrics();
    const second = new Metrics();
    first.count('CallerRequests', { Caller: 'a', Route: 'GET /jobs' });
    second.count('CallerRequests', { Caller: 'b', Route: 'GET /jobs' }, 2);
    first.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
    const [ofSecond] = second.take('listJobs');
    const [ofFirst] = first.take('listJobs');
    expect(ofFirst).toMatchObject({ Caller: 'a', CallerRequests: 1, UpstreamCalls: 1 });
    expect(ofSecond).toMatchObject({ Caller: 'b', CallerRequests: 2 });
    expect(ofSecond).not.toHaveProperty('UpstreamCalls');
    expect(first.take('listJobs')).toEqual([]);
  });
});
