import { describe, expect, it } from 'vitest';
import { countMetric, flushMetrics, METRIC_NAMESPACE } from '../../../lib/metrics.js';

describe('metrics in CloudWatch embedded metric format', () => {
  it('writes one EMF line per set of dimensions, with the sums, then starts afresh', () => {
    countMetric('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
    countMetric('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
    countMetric('UpstreamRetries', { Service: 'scan-jobs' }, 3);
    countMetric('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'timeout' });
    const lines: string[] = [];
    flushMetrics('listJobs', (line) => lines.push(line));
    const documents = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(documents).toHaveLength(3);
    const success = documents.find((d) => d.Outcome === 'success')!;
    expect(success).toMatchObject({
      Function: 'listJobs',
      Service: 'scan-jobs',
      UpstreamCalls: 2,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [['Function', 'Service', 'Outcome']],
            Metrics: [{ Name: 'UpstreamCalls', Unit: 'Count' }],
          },
        ],
      },
    });
    expect(typeof (success._aws as { Timestamp: unknown }).Timestamp).toBe('number');
    expect(documents.find((d) => d.UpstreamRetries !== undefined)).toMatchObject({
      UpstreamRetries: 3,
    });
    const again: string[] = [];
    flushMetrics('listJobs', (line) => again.push(line));
    expect(again).toEqual([]);
  });
});
