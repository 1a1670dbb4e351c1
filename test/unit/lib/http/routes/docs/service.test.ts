/** The service's own routes' docs (lib/http/routes/docs/service.ts). */
import { describe, expect, it } from 'vitest';
import { serviceDocs } from '../../../../../../lib/http/routes/docs/service.ts';
import { serviceRoutes } from '../../../../../../lib/http/routes/service.ts';

describe("the service routes' docs", () => {
  it('give each route its line of the README, the reference’s three one line', () => {
    expect(Object.keys(serviceDocs).sort()).toEqual(Object.keys(serviceRoutes).sort());
    expect(serviceDocs.health.upstream).toBe('none');
    expect(
      new Set([serviceDocs.openapi, serviceDocs.docs, serviceDocs.docsAsset].map((d) => d.upstream))
        .size,
    ).toBe(1);
  });
});
