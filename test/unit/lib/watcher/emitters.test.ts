import type { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import type { StatusChangeDetail } from '../../../../lib/watcher/changes.ts';
import { eventBridgeEmitter, logEmitter } from '../../../../lib/watcher/emitters.ts';

const detail = (n: number): StatusChangeDetail => ({
  changeId: `${n}:Complete`,
  instanceNo: String(n),
  previousStatus: 'Progress',
  status: 'Complete',
  memo: 'nightly scan',
  start_url: 'https://demo.example.com/',
  observedAt: '2026-11-21T05:35:00.000Z',
  reportPath: `/jobs/${n}/report`,
});
const details = (count: number) => Array.from({ length: count }, (_, i) => detail(i + 1));

type Entry = { Detail?: string };
type Answer = { FailedEntryCount: number; Entries: { EventId?: string; ErrorCode?: string }[] };

/** A stand-in for the SDK client: records each PutEvents input and answers as scripted. */
function fakeClient(answer: (entries: Entry[], call: number) => Answer | Error) {
  const calls: Entry[][] = [];
  const client = {
    send: async (command: PutEventsCommand) => {
      const entries = (command.input.Entries ?? []) as Entry[];
      calls.push(entries);
      const result = answer(entries, calls.length);
      if (result instanceof Error) throw result;
      return result;
    },
  } as unknown as EventBridgeClient;
  return { client, calls };
}
const idOf = (entry: Entry) => (JSON.parse(entry.Detail ?? '{}') as { changeId: string }).changeId;
const accepted = (entries: Entry[]): Answer => ({
  FailedEntryCount: 0,
  Entries: entries.map((_e, i) => ({ EventId: `e${i}` })),
});

/** The run's logger, where a test does not read it. */
const quiet = createLogger({}, () => {});

describe('eventBridgeEmitter batching', () => {
  it('sends 23 changes as PutEvents of 10, 10 and 3, in order', async () => {
    const { client, calls } = fakeClient(accepted);
    const emitter = eventBridgeEmitter({ busName: 'bus', client, retryDelayMs: 0 });
    expect(await emitter.emit(details(23), quiet)).toEqual([]);
    expect(calls.map((c) => c.length)).toEqual([10, 10, 3]);
    expect(calls.flat().map(idOf)).toEqual(details(23).map((d) => d.changeId));
  });

  it('sends only the refused entries again, and reports those refused every time', async () => {
    // Entry 2 is refused once (throttled), entry 4 always.
    const { client, calls } = fakeClient((entries, call) => ({
      FailedEntryCount: 0,
      Entries: entries.map((entry) => {
        const id = idOf(entry);
        if (id === '4:Complete' || (id === '2:Complete' && call === 1))
          return { ErrorCode: 'ThrottlingException' };
        return { EventId: `${id}@${call}` };
      }),
    }));
    const emitter = eventBridgeEmitter({ busName: 'bus', client, maxAttempts: 3, retryDelayMs: 0 });
    const failures = await emitter.emit(details(5), quiet);
    expect(calls.map((c) => c.map(idOf))).toEqual([
      ['1:Complete', '2:Complete', '3:Complete', '4:Complete', '5:Complete'],
      ['2:Complete', '4:Complete'],
      ['4:Complete'],
    ]);
    expect(failures).toEqual([{ detail: detail(4), reason: 'ThrottlingException' }]);
  });

  it('reports a whole batch whose call failed by the error name, and goes on with the next', async () => {
    const failure = Object.assign(new Error('Service unavailable'), { name: 'InternalException' });
    const { client, calls } = fakeClient((entries, call) =>
      call === 1 ? failure : accepted(entries),
    );
    const emitter = eventBridgeEmitter({ busName: 'bus', client, maxAttempts: 1 });
    const failures = await emitter.emit(details(12), quiet);
    expect(failures.map((f) => [f.detail.instanceNo, f.reason])).toEqual(
      details(10).map((d) => [d.instanceNo, 'InternalException']),
    );
    expect(calls.map((c) => c.length)).toEqual([10, 2]);
  });
});

describe('logEmitter', () => {
  it('writes one structured line per change', async () => {
    const lines: string[] = [];
    const emitter = logEmitter();
    const log = createLogger({ function: 'w' }, (line) => lines.push(line));
    expect(await emitter.emit(details(2), log)).toEqual([]);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { level: 'info', message: 'scan job status changed', function: 'w', ...detail(1) },
      { level: 'info', message: 'scan job status changed', function: 'w', ...detail(2) },
    ]);
  });
});
