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
} from '../core/call-context.ts';

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
  return { take: (answer) => new Taker(store, answer) };
}

/** One answer's body: in memory while it may fit, then to the store (a class: one allocation). */
class Taker implements AnswerTaker {
  private readonly limit: number;
  private readonly declared: number;
  private held: Buffer[] = [];
  private size = 0;
  private opening: Promise<AnswerSink> | undefined;
  private sink: AnswerSink | undefined;
  /** Bytes that came while the store opened (the exchange is paused then, so none should). */
  private early: Buffer[] | undefined;
  private ended = false;

  private readonly store: AnswerStore;
  private readonly answer: AnswerTaken;

  constructor(store: AnswerStore, answer: AnswerTaken) {
    this.store = store;
    this.answer = answer;
    this.limit = store.readLimit(answer);
    this.declared = Number(answer.headers['content-length']);
    if (this.declared > this.limit) this.open();
  }

  data(chunk: Buffer): void {
    if (!this.opening) {
      this.held.push(chunk);
      this.size += chunk.length;
      if (this.size > this.limit) this.open();
    } else if (this.sink) this.sink.write(chunk);
    else {
      this.early ??= [];
      this.early.push(chunk);
    }
  }

  end(): void {
    this.ended = true;
    if (this.opening) {
      if (this.sink) this.complete(this.sink);
      return;
    }
    const { status, headers } = this.answer;
    const body = Buffer.concat(this.held, this.size);
    if (this.store.fits({ status, headers, body })) {
      this.answer.done({ body });
      return;
    }
    this.held = [body];
    this.open();
  }

  abort(): Promise<void> | undefined {
    return this.opening?.then((opened) => opened.abort()).catch(() => {});
  }

  private open(): void {
    const { answer } = this;
    answer.flow.pause();
    this.opening = this.store.open({
      status: answer.status,
      headers: answer.headers,
      declaredBytes: Number.isNaN(this.declared) ? undefined : this.declared,
      deadlineAt: answer.deadlineAt,
      held: this.held,
      flow: answer.flow,
      fail: answer.fail,
    });
    this.held = [];
    this.opening.then((opened) => {
      this.sink = opened;
      for (const chunk of this.early ?? []) opened.write(chunk);
      this.early = undefined;
      if (this.ended) this.complete(opened);
    }, answer.fail);
  }

  private complete(opened: AnswerSink): void {
    opened.end().then((stored) => this.answer.done({ body: NO_BODY, stored }), this.answer.fail);
  }
}
