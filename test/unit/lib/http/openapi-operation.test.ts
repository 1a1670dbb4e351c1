/**
 * One operation of the document (lib/http/openapi-operation.ts), from a route of the registry:
 * its id, who may call it, its parameters and body from the route's schemas, its responses. The
 * whole document is test/unit/lib/http/openapi.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { jsonSchemaOf, operationOf } from '../../../../lib/http/openapi-operation.ts';
import type { RouteDocs } from '../../../../lib/http/routes/docs/route-docs.ts';
import { defineRoute } from '../../../../lib/http/routes/route.ts';

const route = defineRoute({
  id: 'probe',
  function: 'probe',
  method: 'ANY',
  path: '/probes/{id}',
  access: { scope: 'jobs:read' },
  handsOff: true,
  summary: 'A probe',
  tag: 'jobs',
  input: {
    path: z.object({ id: z.string() }),
    query: z.object({ page: z.pipe(z.string(), z.transform(Number)) }),
    body: z.object({ n: z.number() }),
  },
});
const docs: RouteDocs = {
  description: 'Probes.',
  responses: [{ status: 200, description: 'Done' }],
};

describe('operationOf', () => {
  it('names each method of an ANY route apart, and says who may call it', () => {
    const post = operationOf(route, 'POST', docs);
    expect(post).toMatchObject({
      operationId: 'probePost',
      summary: 'A probe',
      tags: ['jobs'],
      security: [{ callerToken: ['jobs:read'] }, { callerToken: ['*'] }],
      description: 'Probes. Needs the scope `jobs:read` (or `*`).',
    });
  });

  it('takes its parameters and body from the route’s schemas, a GET without a body', () => {
    const post = operationOf(route, 'POST', docs) as {
      parameters: { name: string; in: string }[];
      requestBody: unknown;
    };
    expect(post.parameters.map((p) => [p.in, p.name])).toEqual([
      ['path', 'id'],
      ['query', 'page'],
    ]);
    expect(post.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(route.input!.body!) } },
    });
    expect(operationOf(route, 'GET', docs).requestBody).toBeUndefined();
  });

  it('answers its documented statuses, the 303 of a hand-off, and the envelope of what it refuses', () => {
    const responses = operationOf(route, 'GET', docs).responses as Record<string, unknown>;
    expect(Object.keys(responses).sort()).toEqual(
      ['200', '303', '400', '401', '403', 'default'].sort(),
    );
    expect(responses['303']).toEqual({ $ref: '#/components/responses/HandedOff' });
    expect(responses['403']).toEqual({ $ref: '#/components/responses/Error' });
  });
});
