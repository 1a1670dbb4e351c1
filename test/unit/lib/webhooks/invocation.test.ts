import { describe, expect, it } from 'vitest';
import {
  depthOf,
  invocationSchema,
  MAX_INLINE_MESSAGE_BYTES,
  MAX_PAYLOAD_DEPTH,
  readInvocation,
} from '../../../../lib/webhooks/invocation.ts';

describe('readInvocation', () => {
  it('reads the invocation a message carries', () => {
    expect(readInvocation('{"action":"hello","params":{"n":1}}')).toEqual({
      action: 'hello',
      params: { n: 1 },
    });
  });

  it('says what is wrong with a message that carries none', () => {
    expect(readInvocation('hello')).toBe('not JSON');
    expect(readInvocation('{"params":{}}')).toMatch(/^action: /);
    expect(readInvocation('{"action":"hello","params":[1]}')).toMatch(/^params: /);
  });
});

describe('invocationSchema', () => {
  it('reads a queued invocation, params an empty object when none were sent', () => {
    expect(invocationSchema.parse({ action: 'hello' })).toEqual({ action: 'hello', params: {} });
    const full = {
      action: 'hello',
      params: { name: 'Ada', nested: { list: [1, 2] } },
      paramsRef: { bucket: 'b', key: 'deliveries/k.json', sha256: 'a'.repeat(64) },
      source: { webhook: 'demo', id: 'msg_1', key: 'demo:msg_1', timestamp: 1_790_000_000 },
    };
    expect(invocationSchema.parse(full)).toEqual(full);
  });

  it.each([
    ['no action', { params: {} }],
    ['an action name with a slash', { action: '../hello' }],
    ['an empty action name', { action: '' }],
    ['params that are a list', { action: 'hello', params: [1, 2] }],
    ['params that are text', { action: 'hello', params: 'n=1' }],
    ['a source without its id', { action: 'hello', source: { webhook: 'demo' } }],
    ['a paramsRef without its key', { action: 'hello', paramsRef: { bucket: 'b' } }],
    [
      'a paramsRef without the SHA-256 of its params',
      { action: 'hello', paramsRef: { bucket: 'b', key: 'deliveries/k.json' } },
    ],
    [
      'a paramsRef whose SHA-256 is not hex',
      {
        action: 'hello',
        paramsRef: { bucket: 'b', key: 'deliveries/k.json', sha256: 'x'.repeat(64) },
      },
    ],
  ])('refuses %s', (_case, value) => {
    expect(invocationSchema.safeParse(value).success).toBe(false);
  });
});

describe('the size and depth a message may have', () => {
  it('carries at most 256 KiB itself, a quarter of what SQS takes', () => {
    expect(MAX_INLINE_MESSAGE_BYTES).toBe(256 * 1024);
  });
});

describe('depthOf', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
    return value;
  };

  it('counts how deep a value nests: a scalar is 0, each object or list one more', () => {
    expect(depthOf('text')).toBe(0);
    expect(depthOf(null)).toBe(0);
    expect(depthOf({})).toBe(1);
    expect(depthOf([])).toBe(1);
    expect(depthOf({ a: 1, b: [2, { c: 3 }] })).toBe(3);
    expect(depthOf(nested(MAX_PAYLOAD_DEPTH))).toBe(MAX_PAYLOAD_DEPTH);
  });

  it('stops counting once past the limit, however deep the value goes, without recursing', () => {
    const deep = nested(100_000);
    expect(depthOf(deep)).toBe(MAX_PAYLOAD_DEPTH + 1);
  });
});
