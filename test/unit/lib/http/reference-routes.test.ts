/**
 * The reference's routes as a stage serves them (lib/http/reference-routes.ts): public by
 * default, refused at init where the stage turned its public reference off (serverless.yml
 * deploys the handler of the stage's choice, and each checks the stage says the same), or for
 * known callers, over the same route otherwise.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../../lib/core/errors.js';
import {
  callerReferenceRoute,
  publicReferenceRoute,
} from '../../../../lib/http/reference-routes.js';
import { needsCaller, type Route } from '../../../../lib/http/routes/route.js';
import { serviceRoutes } from '../../../../lib/http/routes/service.js';

const REFERENCE = [serviceRoutes.openapi, serviceRoutes.docs, serviceRoutes.docsAsset] as Route[];

describe('publicReferenceRoute', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.each([undefined, '', 'true'])(
    'serves the reference to anyone when PUBLIC_REFERENCE is %j',
    (value) => {
      vi.stubEnv('PUBLIC_REFERENCE', value);
      for (const route of REFERENCE) {
        const served = publicReferenceRoute(route);
        expect(served.access).toBe('public');
        expect(needsCaller(served)).toBe(false);
      }
    },
  );

  it("refuses to start public where the stage turned it off, naming the route and the stage's setting", () => {
    vi.stubEnv('PUBLIC_REFERENCE', 'false');
    for (const route of REFERENCE) {
      expect(() => publicReferenceRoute(route)).toThrow(ConfigError);
      expect(() => publicReferenceRoute(route)).toThrow(
        `PUBLIC_REFERENCE is false, but ${route.id} was deployed public`,
      );
    }
  });

  it('fails closed on a value it cannot read: no public reference by mistake', () => {
    vi.stubEnv('PUBLIC_REFERENCE', 'off');
    expect(() => publicReferenceRoute(serviceRoutes.docs)).toThrow(ConfigError);
  });
});

describe('callerReferenceRoute', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('serves the reference to any known caller, whatever the stage says', () => {
    for (const value of ['false', 'true', undefined]) {
      vi.stubEnv('PUBLIC_REFERENCE', value);
      for (const route of REFERENCE) {
        const served = callerReferenceRoute(route);
        expect(served.access).toBe('caller');
        expect(needsCaller(served)).toBe(true);
      }
    }
  });
});

describe('either way', () => {
  it('is the same route otherwise, and leaves the registry entry as it was', () => {
    const route = serviceRoutes.docsAsset;
    const before = structuredClone({ ...route, input: undefined });
    for (const served of [publicReferenceRoute(route), callerReferenceRoute(route)]) {
      expect(served).not.toBe(route);
      const { access: _access, ...rest } = served;
      const { access: _own, ...own } = route;
      expect(rest).toEqual(own);
      expect(served.input).toBe(route.input);
    }
    expect(route.access).toBe('public');
    expect({ ...route, input: undefined }).toEqual(before);
  });
});
