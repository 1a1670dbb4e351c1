import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../../lib/core/errors.ts';
import { jsonBody } from '../../../../../lib/http/middleware/json-body.ts';
import type { RequestState } from '../../../../../lib/http/request-state.ts';
import type { EventChanges } from '../../../../helpers/lambda.ts';
import { ownStack, stateOf } from './own-stack.ts';

/** The details of the 400 the middleware stops the request with, or the state it passed. */
async function outcome(changes: EventChanges) {
  const { state } = stateOf(changes);
  try {
    await ownStack([jsonBody()])(state);
    return { passed: state };
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ status: 400, code: '100' });
    return { refused: (error as InputError).details };
  }
}

const json = (body: string | undefined, contentType: string | null = 'application/json') => ({
  body,
  headers: { 'content-type': contentType ?? undefined },
});

describe('jsonBody', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=UTF-8',
    'application/vnd.api+json',
  ])('takes a JSON object labelled %s', async (contentType) => {
    expect(await outcome(json('{"n":1}', contentType))).toHaveProperty('passed');
  });

  it.each([
    ['no body', json(undefined), 'body', 'a JSON body is required'],
    ['an empty body', json(''), 'body', 'a JSON body is required'],
    ['text', json('{"n":1}', 'text/plain'), 'headers.content-type', 'expected application/json'],
    ['no Content-Type', json('{"n":1}', null), 'headers.content-type', 'expected application/json'],
    ['malformed JSON', json('{"n":'), 'body', 'expected a JSON document'],
    ['the JSON 0', json('0'), 'body', 'expected a JSON object'],
    ['the JSON null', json('null'), 'body', 'expected a JSON object'],
    ['a JSON string', json('"n"'), 'body', 'expected a JSON object'],
    ['a JSON array', json('[{"n":1}]'), 'body', 'expected a JSON object'],
  ])('refuses %s, naming what it expected', async (_case, changes, path, issue) => {
    expect(await outcome(changes)).toEqual({ refused: [{ path, issue }] });
  });

  it('parses the body once: the value the later checks and the handler read is the same', async () => {
    const { passed } = (await outcome(json('{"n":{"deep":true}}'))) as { passed: RequestState };
    const first = passed.body.json();
    expect(first).toEqual({ n: { deep: true } });
    expect(passed.body.json()).toBe(first);
  });

  it('reads a base64-encoded body as its decoded bytes', async () => {
    const body = Buffer.from('{"s":"한글"}').toString('base64');
    const { passed } = (await outcome({ ...json(body), isBase64Encoded: true })) as {
      passed: RequestState;
    };
    expect(passed.body.json()).toEqual({ s: '한글' });
  });
});
