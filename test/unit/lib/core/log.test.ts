import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.js';

describe('createLogger', () => {
  it('leaves out lines below the level, but not the metrics they carry', () => {
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line), 'warn');
    log.info('quiet', { a: 1 }, { _aws: { CloudWatchMetrics: [] }, UpstreamCalls: 1 });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { _aws: { CloudWatchMetrics: [] }, UpstreamCalls: 1 },
    ]);
  });

  it('leaves out lines below the level', () => {
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line), 'warn');
    log.info('quiet');
    log.warn('heard');
    log.child({ a: 1 }).info('quiet too');
    log.child({ a: 1 }).error('heard too');
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual([
      'heard',
      'heard too',
    ]);
  });
});
