import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grants, isScope, scopeFor, scopesGranting } from '../../../../lib/core/scopes.js';

describe('scopes', () => {
  it.each([
    ['jobs:read', ['jobs:read', '*']],
    ['actions:hello', ['actions:hello', 'actions:*', '*']],
    ['actions:*', ['actions:*', '*']],
    ['catalogue:maps', ['catalogue:maps', 'catalogue:*', '*']],
    ['*', ['*']],
  ])('%s is granted by %j, most specific first', (scope, granting) => {
    expect(scopesGranting(scope)).toEqual(granting);
  });

  it('fills the name of a route template', () => {
    expect(scopeFor('actions:{name}', 'hello')).toBe('actions:hello');
    expect(scopeFor('jobs:read', 'ignored')).toBe('jobs:read');
  });

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

  it('knows the vocabulary', () => {
    expect(isScope('actions:hello')).toBe(true);
    expect(isScope('catalogue:maps')).toBe(true);
    expect(isScope('jobs:write')).toBe(false);
  });
});
