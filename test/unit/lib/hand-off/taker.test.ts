/**
 * The taker of a success answer (lib/hand-off/taker.ts), against a store the test records: an
 * answer under the read limit comes back whole; past it, or declared past it, the exchange is
 * paused and the store opened with what was read, then every later byte goes to the store in
 * order; an answer read whole that does not fit after all is stored whole; an abort reaches the
 * store once it is open.
 */
import { describe, expect, it } from 'vitest';
import type { AnswerTaken, StoredAnswer } from '../../../../lib/core/call-context.ts';
import { type AnswerOpening, answerTaker } from '../../../../lib/hand-off/taker.ts';

const STORED: StoredAnswer = {
  key: 'fn/key',
  bytes: 0,
  sha256: '',
  contentType: 'application/octet-stream',
  url: 'http://s3/key',
  expiresAt: new Date(0),
};

/** A store that records what it was given, opening when the test says so. */
function recordingStore(options: { limit?: number; fits?: boolean } = {}) {
  const written: Buffer[] = [];
  const openings: AnswerOpening[] = [];
  let opened: (() => void) | undefined;
  let ended = 0;
  let aborted = 0;
  const taker = answerTaker({
    readLimit: () => options.limit ?? 10,
    fits: () => options.fits ?? true,
    open: (answer) => {
      openings.push(answer);
      return new Promise((resolve) => {
        opened = () =>
          resolve({
            write: (chunk) => void written.push(chunk),
            end: async () => {
              ended += 1;
              return STORED;
            },
            abort: async () => {
              aborted += 1;
            },
          });
      });
    },
  });
  return {
    taker,
    written,
    openings,
    open: () => opened?.(),
    ended: () => ended,
    aborted: () => aborted,
  };
}

/** An answer as the exchange hands it over, recording its flow and its outcome. */
function exchange(headers: Record<string, string> = {}) {
  const flow: string[] = [];
  const outcome: { done?: { body: Buffer; stored?: StoredAnswer }; failed?: Error } = {};
  const answer: AnswerTaken = {
    status: 200,
    headers,
    deadlineAt: Date.now() + 10_000,
    flow: { pause: () => void flow.push('pause'), resume: () => void flow.push('resume') },
    done: (result) => {
      outcome.done = result;
    },
    fail: (error) => {
      outcome.failed = error;
    },
  };
  return { answer, flow, outcome };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('answerTaker', () => {
  it('gives an answer under the read limit back whole, the store never opened', () => {
    const store = recordingStore();
    const { answer, outcome, flow } = exchange();
    const taken = store.taker.take(answer);

    taken.data(Buffer.from('abcde'));
    taken.data(Buffer.from('fghij'));
    taken.end();

    expect(outcome.done?.body.toString()).toBe('abcdefghij');
    expect(outcome.done?.stored).toBeUndefined();
    expect(store.openings).toHaveLength(0);
    expect(flow).toEqual([]);
  });

  it('past the read limit, pauses the exchange, opens the store with what was read, then writes on in order', async () => {
    const store = recordingStore();
    const { answer, outcome, flow } = exchange();
    const taken = store.taker.take(answer);

    taken.data(Buffer.from('0123456'));
    taken.data(Buffer.from('789ab'));
    expect(flow).toEqual(['pause']);
    expect(store.openings[0]?.held.map(String)).toEqual(['0123456', '789ab']);
    // Anything that comes before the store is open waits for it.
    taken.data(Buffer.from('c'));
    store.open();
    await settle();
    taken.data(Buffer.from('de'));
    taken.end();
    await settle();

    expect(store.written.map(String)).toEqual(['c', 'de']);
    expect(store.ended()).toBe(1);
    expect(outcome.done).toEqual({ body: Buffer.alloc(0), stored: STORED });
  });

  it('opens the store at once for an answer that declares more than the read limit', () => {
    const store = recordingStore();
    const { answer, flow } = exchange({ 'content-length': '11' });

    store.taker.take(answer);

    expect(flow).toEqual(['pause']);
    expect(store.openings[0]).toMatchObject({ declaredBytes: 11, held: [] });
  });

  it('stores an answer read whole that does not fit the response after all', async () => {
    const store = recordingStore({ fits: false });
    const { answer, outcome } = exchange({ 'content-length': '4' });
    const taken = store.taker.take(answer);

    taken.data(Buffer.from('abcd'));
    taken.end();
    store.open();
    await settle();

    expect(store.openings[0]?.held.map(String)).toEqual(['abcd']);
    expect(store.ended()).toBe(1);
    expect(outcome.done?.stored).toBe(STORED);
  });

  it('aborts the store once it is open, and has nothing to abort before', async () => {
    const store = recordingStore();
    const { answer } = exchange();
    const taken = store.taker.take(answer);
    expect(taken.abort()).toBeUndefined();

    taken.data(Buffer.alloc(11));
    const aborting = taken.abort();
    store.open();
    await aborting;

    expect(store.aborted()).toBe(1);
  });

  it('ends the exchange with the store failing to open', async () => {
    const failure = new Error('no bucket');
    const taker = answerTaker({
      readLimit: () => 1,
      fits: () => true,
      open: () => Promise.reject(failure),
    });
    const { answer, outcome } = exchange();

    taker.take(answer).data(Buffer.from('ab'));
    await settle();

    expect(outcome.failed).toBe(failure);
  });
});
