import { describe, expect, it } from 'vitest';
import { UpstreamTimeoutError } from '../../../../lib/core/errors.ts';
import { RequestCalls } from '../../../../lib/http/request-calls.ts';

describe('RequestCalls', () => {
  it('lets calls start and be written until the request is answered, and remembers one was written', () => {
    const calls = new RequestCalls();
    calls.beforeSend();
    expect(calls.sent).toBe(false);
    calls.onSend();
    expect(calls.sent).toBe(true);
  });

  it('refuses any call once the request was answered', () => {
    const calls = new RequestCalls();
    calls.answered();
    expect(() => calls.beforeSend()).toThrow(UpstreamTimeoutError);
    expect(() => calls.onSend()).toThrow(UpstreamTimeoutError);
    expect(calls.sent).toBe(false);
  });

  it('runs the unsent callback once, when answered with nothing written, registered before or after', () => {
    const before = new RequestCalls();
    let ranBefore = 0;
    before.whenAnsweredUnsent(() => ranBefore++);
    expect(ranBefore).toBe(0);
    before.answered();
    expect(ranBefore).toBe(1);

    const after = new RequestCalls();
    after.answered();
    let ranAfter = 0;
    after.whenAnsweredUnsent(() => ranAfter++);
    expect(ranAfter).toBe(1);
  });

  it('never runs the unsent callback once a call was written', () => {
    const calls = new RequestCalls();
    let ran = 0;
    calls.whenAnsweredUnsent(() => ran++);
    calls.onSend();
    calls.answered();
    expect(ran).toBe(0);
    const late = new RequestCalls();
    late.onSend();
    late.answered();
    late.whenAnsweredUnsent(() => ran++);
    expect(ran).toBe(0);
  });
});
