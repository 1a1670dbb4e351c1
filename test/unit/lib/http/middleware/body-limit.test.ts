import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../../../../lib/core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../../../../lib/core/lambda-limits.ts';
import { bodyLimit, MAX_BODY_BYTES } from '../../../../../lib/http/middleware/body-limit.ts';
import { ownStack, stateOf } from './own-stack.ts';

const handle = ownStack([bodyLimit()]);

describe('bodyLimit', () => {
  it("is a synchronous Lambda invocation's 6 MB", () => {
    expect(MAX_BODY_BYTES).toBe(LAMBDA_PAYLOAD_LIMIT_BYTES);
    expect(MAX_BODY_BYTES).toBe(6 * 1024 * 1024);
  });

  it('passes a body of exactly the limit, and refuses one byte more with 413/430', async () => {
    const at = stateOf({ body: 'x'.repeat(MAX_BODY_BYTES) }).state;
    expect((await handle(at)).statusCode).toBe(200);
    const over = stateOf({ body: 'x'.repeat(MAX_BODY_BYTES + 1) }).state;
    const refused = handle(over);
    await expect(refused).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(refused).rejects.toMatchObject({ status: 413, code: '430' });
  });

  it('counts the bytes as sent: UTF-8, and base64 by its decoded size', async () => {
    // 3 bytes each in UTF-8: one character over a third of the limit is over it.
    const korean = '가'.repeat(MAX_BODY_BYTES / 3 + 1);
    await expect(handle(stateOf({ body: korean }).state)).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
    const encoded = (size: number) => Buffer.alloc(size, 1).toString('base64');
    const atLimit = stateOf({ body: encoded(MAX_BODY_BYTES), isBase64Encoded: true }).state;
    expect((await handle(atLimit)).statusCode).toBe(200);
    const over = stateOf({ body: encoded(MAX_BODY_BYTES + 1), isBase64Encoded: true }).state;
    await expect(handle(over)).rejects.toBeInstanceOf(PayloadTooLargeError);
  });
});
