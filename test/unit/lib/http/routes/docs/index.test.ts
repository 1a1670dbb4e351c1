/** Every route's docs by its id (lib/http/routes/docs/index.ts). */
import { describe, expect, it } from 'vitest';
import { docsOf } from '../../../../../../lib/http/routes/docs/index.ts';
import { routes } from '../../../../../../lib/http/routes/index.ts';

describe('docsOf', () => {
  it('gives every route of the registry its docs, with a response at least', () => {
    for (const route of routes) expect(docsOf(route).responses.length, route.id).toBeGreaterThan(0);
  });

  it('throws for a route that has none, naming it', () => {
    expect(() => docsOf({ id: 'noSuchRoute' })).toThrow('Route noSuchRoute has no docs');
  });
});
