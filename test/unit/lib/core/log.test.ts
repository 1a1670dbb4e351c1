import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';

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

  it('writes debug lines at the debug level only (LOG_LEVEL=debug)', () => {
    const lines: string[] = [];
    createLogger({}, (line) => lines.push(line)).debug('quiet at info');
    createLogger({}, (line) => lines.push(line), 'debug')
      .child({ a: 1 })
      .debug('heard');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { level: 'debug', message: 'heard', a: 1 },
    ]);
  });
});

describe('the request line, as docs/callers.md queries it', () => {
  it("lets the documented Logs Insights filter find a job among a line's jobIds, and no other", () => {
    const docs = readFileSync(
      path.resolve(import.meta.dirname, '../../../../docs/callers.md'),
      'utf8',
    );
    const filter = /\| filter @message like \/(.+)\/\n/.exec(docs)?.[1];
    expect(filter).toBeDefined();
    const lines: string[] = [];
    const log = createLogger({ function: 'cancelReservedJobs' }, (line) => lines.push(line));
    log.child({ caller: 'ops' }).info('request', {
      status: 200,
      jobIds: ['2810019', '2810017', '2810021'],
    });
    log.child({ caller: 'ops' }).info('request', { status: 200, jobIds: ['28100170'] });
    const matching = new RegExp(filter!);
    expect(lines.map((line) => matching.test(line))).toEqual([true, false]);
  });
});
