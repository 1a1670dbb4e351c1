import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { InputError } from '../../../../../lib/core/errors.ts';
import { pathParams } from '../../../../../lib/http/middleware/path-params.ts';
import { ownStack, stateOf } from './own-stack.ts';

const schema = z.object({
  name: z.string().check(z.regex(/^[a-z]+$/, 'expected a lower-case name')),
  n: z.optional(z.pipe(z.string(), z.transform(Number))),
});

describe('pathParams', () => {
  it('puts the validated parameters on the state, before the handler (and the scope check) read them', async () => {
    const { state } = stateOf({ pathParameters: { name: 'echo', n: '3' } });
    let seen: unknown;
    await ownStack([pathParams(schema)], async (s) => {
      seen = s.path;
      return { statusCode: 200 };
    })(state);
    expect(seen).toEqual({ name: 'echo', n: 3 });
  });

  it('refuses a parameter that fails its schema with 400/100 naming it, and the handler never runs', async () => {
    const { state } = stateOf({ pathParameters: { name: '../x' } });
    let ran = false;
    const refused = ownStack([pathParams(schema)], async () => {
      ran = true;
      return { statusCode: 200 };
    })(state);
    await expect(refused).rejects.toBeInstanceOf(InputError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      code: '100',
      details: [{ path: 'path.name', issue: 'expected a lower-case name, got "../x"' }],
    });
    expect(ran).toBe(false);
    expect(state.path).toEqual({});
  });

  it('validates an event without path parameters as none', async () => {
    const { state } = stateOf();
    delete (state.apiGatewayEvent as { pathParameters?: unknown }).pathParameters;
    await expect(ownStack([pathParams(schema)])(state)).rejects.toMatchObject({
      details: [{ path: 'path.name', issue: expect.any(String) }],
    });
  });
});
