import { describe, expect, it } from 'vitest';
import { executionUrl, resolveTarget } from '../../../../lib/execution/targets.ts';
import { thrownServiceError } from '../../../helpers/service-error.ts';

describe('executionUrl', () => {
  it('adds blocking and result to a URL without a query', () => {
    expect(executionUrl('https://gw.example/ab12/dev/hello', true).href).toBe(
      'https://gw.example/ab12/dev/hello?blocking=true&result=true',
    );
  });

  it('keeps the query the URL already has, exactly as written', () => {
    expect(executionUrl('https://gw.example/x?a=b%20c&flag&t=1+2', false).search).toBe(
      '?a=b%20c&flag&t=1+2&blocking=true&result=false',
    );
  });

  it('replaces a blocking or result the URL already carries', () => {
    expect(executionUrl('https://gw.example/x?blocking=false&k=v&result=true', false).search).toBe(
      '?k=v&blocking=true&result=false',
    );
  });
});

describe('resolveTarget', () => {
  const secret = {
    actions: {
      hello: { url: 'https://gw/a', web: true, apiKey: 'k1' },
      plain: { url: 'https://gw/p' },
    },
    triggers: { nightly: { url: 'https://gw/t' } },
  };

  it('finds actions and triggers with their flags', () => {
    expect(resolveTarget(secret, 'action', 'hello')).toEqual({
      kind: 'action',
      name: 'hello',
      url: 'https://gw/a',
      web: true,
      apiKey: 'k1',
      idempotent: false,
    });
    expect(resolveTarget(secret, 'action', 'plain').web).toBe(false);
    expect(resolveTarget(secret, 'trigger', 'nightly').web).toBe(false);
  });

  it.each([
    ['action', 'nightly'],
    ['trigger', 'hello'],
    ['action', 'toString'],
    ['action', '__proto__'],
  ] as const)('answers 404/300 for the %s %s', (kind, name) => {
    const error = thrownServiceError(() => resolveTarget(secret, kind, name));
    expect([error.status, error.code]).toEqual([404, '300']);
  });

  it('answers 404/300 when the secret has no actions at all', () => {
    expect(thrownServiceError(() => resolveTarget({}, 'action', 'hello')).status).toBe(404);
  });
});
