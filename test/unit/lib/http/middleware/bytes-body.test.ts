import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../../lib/core/errors.ts';
import { bytesBody } from '../../../../../lib/http/middleware/bytes-body.ts';
import { ownStack, stateOf } from './own-stack.ts';

const AUDIO = ['application/octet-stream', 'audio/wav'];

/** The details of the 400 the middleware stops a request with, or 'passed'. */
async function outcome(
  middleware: ReturnType<typeof bytesBody>,
  contentType: string | undefined,
  body: string | undefined,
) {
  const { state } = stateOf({ headers: { 'content-type': contentType }, body });
  try {
    await ownStack([middleware])(state);
    return 'passed';
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ status: 400, code: '100' });
    return (error as InputError).details;
  }
}

describe('bytesBody', () => {
  it.each(['application/octet-stream', 'Audio/WAV', 'audio/wav; rate=16000'])(
    'takes a body of the media type %s (case and parameters aside)',
    async (contentType) => {
      expect(await outcome(bytesBody(AUDIO, true), contentType, 'RIFF')).toBe('passed');
    },
  );

  it('compares media types as case-insensitive on the route side too', async () => {
    expect(await outcome(bytesBody(['Audio/WAV'], true), 'audio/wav', 'RIFF')).toBe('passed');
  });

  it.each([
    ['another media type', 'application/json'],
    ['no Content-Type', undefined],
  ])('refuses %s, naming the header and the media types it takes', async (_case, contentType) => {
    expect(await outcome(bytesBody(AUDIO, true), contentType, 'RIFF')).toEqual([
      {
        path: 'headers.content-type',
        issue: 'expected application/octet-stream or audio/wav',
      },
    ]);
  });

  it('refuses an empty body where one is required, and lets it through where not', async () => {
    expect(await outcome(bytesBody(AUDIO, true), 'audio/wav', undefined)).toEqual([
      { path: 'body', issue: 'a non-empty body is required' },
    ]);
    expect(await outcome(bytesBody(AUDIO, false), 'audio/wav', undefined)).toBe('passed');
  });
});
