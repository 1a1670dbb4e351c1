import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grants, isScope, scopeOfRequest, scopesGranting } from '../../../../lib/core/scopes.ts';

describe('the scope vocabulary', () => {
  it('has a scope of its own for cancel-reserved, which jobs:cancel does not grant', () => {
    expect(isScope('jobs:cancel-reserved')).toBe(true);
    expect(scopesGranting('jobs:cancel-reserved')).toEqual(['jobs:cancel-reserved', '*']);
    expect(grants(['jobs:cancel'], 'jobs:cancel-reserved')).toBe(false);
    expect(grants(['jobs:cancel-reserved'], 'jobs:cancel')).toBe(false);
    expect(grants(['*'], 'jobs:cancel-reserved')).toBe(true);
    expect(isScope('jobs:*')).toBe(false);
  });
});

describe('a request scope built from its path', () => {
  it('fills the validated name in', () => {
    expect(scopeOfRequest('actions:{name}', { name: 'echo' })).toBe('actions:echo');
    expect(scopeOfRequest('triggers:{name}', { name: 'nightly' })).toBe('triggers:nightly');
    expect(scopeOfRequest('jobs:read', undefined)).toBe('jobs:read');
  });

  it('throws rather than build a scope from a path that was not validated', () => {
    for (const path of [undefined, {}, { name: 'a b' }, { name: '' }, { name: 7 }]) {
      expect(() => scopeOfRequest('actions:{name}', path)).toThrow(/validated \{name\}/);
    }
  });

  it('refuses to build a scope from a name outside the pattern: only a validated path makes one', () => {
    for (const raw of ['a b', '', 'x'.repeat(129), 'é', undefined]) {
      expect(() => scopeOfRequest('actions:{name}', { name: raw })).toThrow('validated {name}');
    }
    expect(scopeOfRequest('actions:{name}', { name: 'echo' })).toBe('actions:echo');
  });
});

describe('whether held scopes grant a request scope', () => {
  it.each([
    [['jobs:read'], 'jobs:read', true],
    [['*'], 'jobs:cancel', true],
    [['jobs:read'], 'jobs:cancel', false],
    [['actions:*'], 'actions:hello', true],
    [['actions:*'], 'triggers:hello', false],
    [['jobs:*'], 'jobs:read', false],
    [[], 'jobs:read', false],
  ])('a caller holding %j may call a %s route: %s', (held, scope, allowed) => {
    expect(grants(held, scope)).toBe(allowed);
  });

  it('grants exactly when the caller holds one of the scopes that grant', () => {
    const area = fc.constantFrom('jobs', 'actions', 'triggers', 'catalogue', 'other', '');
    const name = fc.constantFrom('read', 'cancel', 'hello', 'maps', '*', '');
    const scope = fc.oneof(
      fc.tuple(area, name).map(([a, n]) => `${a}:${n}`),
      fc.constantFrom('*', 'actions', 'actionsX'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(scope, { maxLength: 4 }), scope, (held, wanted) => {
        const expected = scopesGranting(wanted).some((granting) => held.includes(granting));
        expect(grants(held, wanted)).toBe(expected);
      }),
    );
  });
});
