import { describe, expect, it } from 'vitest';
import { executionBody } from '../../../../lib/execution/request.ts';
import type { ExecutionTarget } from '../../../../lib/execution/targets.ts';
import { thrownServiceError } from '../../../helpers/service-error.ts';

const ordinary: ExecutionTarget = {
  kind: 'action',
  name: 'a',
  url: 'http://x/a',
  web: false,
  idempotent: false,
};
const web: ExecutionTarget = { ...ordinary, web: true };

describe('executionBody', () => {
  const json = 'application/json; charset=utf-8';

  it('passes a JSON object through as written', () => {
    expect(executionBody(ordinary, 'POST', Buffer.from('{ "a" : 1 }'), json)).toBe('{ "a" : 1 }');
  });

  it('lets a web action go without a body, and with any JSON value', () => {
    expect(executionBody(web, 'GET', Buffer.alloc(0), undefined)).toBeUndefined();
    expect(executionBody(web, 'PUT', Buffer.from('[1,2]'), json)).toBe('[1,2]');
  });

  it.each([
    ['no body for an ordinary action', ordinary, 'POST', '', json, 'body'],
    ['a JSON array for an ordinary action', ordinary, 'POST', '[1]', json, 'body'],
    ['malformed JSON', web, 'POST', '{"a":', json, 'body'],
    ['another Content-Type', web, 'POST', '{}', 'text/plain', 'headers.content-type'],
    ['no Content-Type', ordinary, 'POST', '{}', undefined, 'headers.content-type'],
    ['a body on GET', web, 'GET', '{}', json, 'body'],
    ['a body on HEAD', web, 'HEAD', '{}', json, 'body'],
  ] as const)('refuses %s with 400/100', (_case, target, method, body, type, path) => {
    const error = thrownServiceError(() => executionBody(target, method, Buffer.from(body), type));
    expect([error.status, error.code]).toEqual([400, '100']);
    expect(error.details).toEqual([expect.objectContaining({ path })]);
  });
});
