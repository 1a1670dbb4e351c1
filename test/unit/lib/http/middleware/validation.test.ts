import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { InputError } from '../../../../../lib/core/errors.ts';
import type { Schema } from '../../../../../lib/core/schemas.ts';
import { validation, validInput } from '../../../../../lib/http/middleware/validation.ts';
import { queryOf } from '../../../../../lib/http/query.ts';
import type { RequestState } from '../../../../../lib/http/request-state.ts';
import { ownStack, stateOf } from './own-stack.ts';

const body = z.strictObject({ n: z.int().check(z.positive('expected a positive number')) });
const query = z.object({
  mode: z.optional(z.enum(['a', 'b'], 'expected a or b')),
  page: z.optional(z.pipe(z.string(), z.transform(Number))),
});

/** The validated input the handler's request reads, or the issues of the 400. */
async function outcome(schemas: { body?: Schema; query?: Schema }, state: RequestState) {
  try {
    // A query is read by the reader its route's binding brings (query.ts's).
    const { body, query } = schemas;
    await ownStack([validation(query ? { body, query, queryOf } : { body })])(state);
    return { input: state.input };
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ status: 400, code: '100' });
    return { issues: (error as InputError).details };
  }
}

const request = (rawQuery: string, text: string) =>
  stateOf({ query: rawQuery, body: text, headers: { 'content-type': 'application/json' } }).state;

describe('validation', () => {
  it('puts the validated query, body and path on the state, as their schemas give them', async () => {
    const state = request('mode=b&page=2', '{"n":3}');
    state.path = { id: '42' };
    expect(await outcome({ body, query }, state)).toEqual({
      input: { body: { n: 3 }, query: { mode: 'b', page: 2 }, path: { id: '42' } },
    });
  });

  it('reports every issue of the query and the body at once, each under its part', async () => {
    const { issues } = await outcome({ body, query }, request('mode=c', '{"n":-1,"pages":2}'));
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'query.mode', issue: 'expected a or b, got "c"' },
        { path: 'body.n', issue: 'expected a positive number, got -1' },
        { path: 'body.pages', issue: 'unknown member; expected one of n' },
      ]),
    );
  });

  it('gives a route without a query schema an empty query, and without a body schema no body', async () => {
    expect(await outcome({}, request('anything=1', 'not json'))).toEqual({
      input: { body: undefined, query: {}, path: {} },
    });
  });

  it('refuses a body that is not JSON where the route takes one', async () => {
    expect(await outcome({ body }, request('', '{"n":'))).toEqual({
      issues: [{ path: 'body', issue: 'expected a JSON document' }],
    });
  });
});

describe('validInput', () => {
  it('gives the parsed value, or a 400 naming every issue under the part it checks', () => {
    expect(validInput('path', z.object({ id: z.string() }), { id: '1' })).toEqual({ id: '1' });
    try {
      validInput(
        'path',
        z.object({ id: z.string('expected a string'), n: z.string('a text') }),
        {},
      );
      expect.unreachable();
    } catch (error) {
      expect((error as InputError).details).toEqual([
        { path: 'path.id', issue: 'required; expected a string' },
        { path: 'path.n', issue: 'required; a text' },
      ]);
    }
  });
});
