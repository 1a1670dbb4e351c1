import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerInTime } from '../../../../lib/http/answer-in-time.ts';
import { json } from '../../../../lib/http/responses.ts';
import { lambdaContext } from '../../../helpers/lambda.ts';
import { stateOf } from './middleware/own-stack.ts';

const never = () => new Promise<never>(() => {});

describe('answerInTime', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers 504/510 shortly before the function's own timeout when the work never ends, and logs it", async () => {
    vi.useFakeTimers();
    const { state, logged } = stateOf({}, lambdaContext(3000));
    let answer: unknown;
    void answerInTime(never(), state).then((result) => {
      answer = result;
    });
    await vi.advanceTimersByTimeAsync(2899);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toMatchObject({ statusCode: 504 });
    expect(JSON.parse((answer as { body: string }).body)).toEqual({
      error: { errorCode: '510', message: 'Endpoint Timeout' },
    });
    expect(logged()).toEqual([
      expect.objectContaining({ level: 'error', message: 'no answer before the function timeout' }),
    ]);
  });

  it('answers in XML when the caller asks for it', async () => {
    vi.useFakeTimers();
    const { state } = stateOf({ headers: { accept: 'text/xml' } }, lambdaContext(500));
    const answered = answerInTime(never(), state);
    await vi.advanceTimersByTimeAsync(500);
    const result = await answered;
    expect(result.headers?.['Content-Type']).toBe('text/xml');
    expect(result.body).toContain('<errorCode>510</errorCode>');
  });

  it('answers with the work when it ends first, and its guard goes quiet', async () => {
    vi.useFakeTimers();
    const { state, lines } = stateOf({}, lambdaContext(3000));
    expect(await answerInTime(Promise.resolve(json(200, { ok: true })), state)).toMatchObject({
      statusCode: 200,
    });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lines).toEqual([]);
  });

  it('passes a failure of the work on as it is', async () => {
    const { state } = stateOf();
    await expect(answerInTime(Promise.reject(new Error('bug')), state)).rejects.toThrow('bug');
  });

  it('guards nothing when the context has no remaining time (a local invoke)', () => {
    const lambda = lambdaContext();
    const { state } = stateOf({}, { ...lambda, getRemainingTimeInMillis: undefined as never });
    const work = Promise.resolve(json(200, {}));
    expect(answerInTime(work, state)).toBe(work);
  });
});
