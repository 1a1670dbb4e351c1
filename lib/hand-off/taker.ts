/**
 * A success answer's body, taken over from the exchange on a route that hands off
 * (core/call-context.ts, AnswerHandOff): read into memory up to the store's read limit and
 * returned whole when it fits the function's response; past that limit, or when one read whole
 * does not fit after all (text that escapes, bytes that grow in base64), written to the store as
 * it arrives and returned stored. The exchange is paused while the store opens, and whenever the
 * store is busy: no second copy of the whole answer is ever in memory.
 */
import type {
  AnswerHandOff,
  AnswerHead,
  AnswerTaken,
  AnswerTaker,
  StoredAnswer,
} from '../core/call-context.js';

/** Where an answer too large to return goes, and how large is too large. */
export interface AnswerStore {
  /** Bytes of the answer kept in memory; past them it cannot fit the response. */
  readLimit(answer: AnswerHead): number;
  /** Whether an answer read whole fits the response after all. */
  fits(answer: AnswerHead & { readonly body: Buffer }): boolean;
  /** Starts storing one answer. */
  open(answer: AnswerOpening): Promise<AnswerSink>;
}

/** An answer whose body goes to a store from here on. */
export interface AnswerOpening extends AnswerHead {
  /** Its Content-Length, when it declared one. */
  readonly declaredBytes: number | undefined;
  /** When the call ends, in milliseconds since the epoch. */
  readonly deadlineAt: number;
  /** The body read so far: stored first. */
  readonly held: readonly Buffer[];
  /** The exchange's flow: paused while the store opens, then the sink's to resume and pause. */
  readonly flow: AnswerTaken['flow'];
  /** Ends the exchange with this error: the store failed, or the answer is over its ceiling. */
  readonly fail: (error: Error) => void;
}

/** Where one answer's body goes, in order, as it arrives (pausing the flow when busy). */
export interface AnswerSink {
  write(chunk: Buffer): void;
  /** The body is whole: once stored, the object and where the caller fetches it. */
  end(): Promise<StoredAnswer>;
  /** The answer will not be whole: nothing of it is kept. */
  abort(): Promise<void>;
}

const NO_BODY = Buffer.alloc(0);

/** The hand-off of answers to a store. */
export function answerTaker(store: AnswerStore): AnswerHandOff {
  return { take: (answer) => take(store, answer) };
}

function take(store: AnswerStore, answer: AnswerTaken): AnswerTaker {
  const limit = store.readLimit(answer);
  const declared = Number(answer.headers['content-length']);
  let held: Buffer[] = [];
  let size = 0;
  let opening: Promise<AnswerSink> | undefined;
  let sink: AnswerSink | undefined;
  // Bytes that came while the store opened (the exchange is paused then, so none should).
  const early: Buffer[] = [];
  let ended = false;
  const complete = (opened: AnswerSink) => {
    opened.end().then((stored) => answer.done({ body: NO_BODY, stored }), answer.fail);
  };
  const open = () => {
    answer.flow.pause();
    opening = store.open({
      status: answer.status,
      headers: answer.headers,
      declaredBytes: Number.isNaN(declared) ? undefined : declared,
      deadlineAt: answer.deadlineAt,
      held,
      flow: answer.flow,
      fail: answer.fail,
    });
    held = [];
    opening.then((opened) => {
      sink = opened;
      for (const chunk of early.splice(0)) opened.write(chunk);
      if (ended) complete(opened);
    }, answer.fail);
  };
  if (declared > limit) open();
  return {
    data(chunk) {
      if (!opening) {
        held.push(chunk);
        size += chunk.length;
        if (size > limit) open();
      } else if (sink) sink.write(chunk);
      else early.push(chunk);
    },
    end() {
      ended = true;
      if (opening) {
        if (sink) complete(sink);
        return;
      }
      const body = Buffer.concat(held, size);
      if (store.fits({ status: answer.status, headers: answer.headers, body })) {
        return answer.done({ body });
      }
      held = [body];
      open();
    },
    abort: () => opening?.then((opened) => opened.abort()).catch(() => {}),
  };
}
