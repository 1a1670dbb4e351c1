import { describe, expect, it } from 'vitest';
import { captchaEntries } from '../../../../lib/catalogue/captcha.ts';
import { languageEntries } from '../../../../lib/catalogue/language.ts';
import { mapsEntries } from '../../../../lib/catalogue/maps.ts';
import { catalogue } from '../../../../lib/catalogue/table.ts';
import { utilityEntries } from '../../../../lib/catalogue/utility.ts';
import { CATALOGUE_APIS } from '../../../../lib/core/scopes.ts';
import { routes } from '../../../../lib/http/routes/index.ts';
import { routeKeyOf } from '../../../../lib/http/routes/route.ts';

describe('the catalogue table', () => {
  it('has eighteen routes (the sixteen APIs), each once', () => {
    const keys = catalogue.map(routeKeyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(
      [
        'POST /translate',
        'POST /tts',
        'POST /stt',
        'GET /maps/static',
        'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
        'GET /maps/directions',
        'GET /maps/places',
        'GET /maps/geocode',
        'GET /maps/reverse-geocode',
        'GET /captcha/image/key',
        'GET /captcha/image',
        'POST /captcha/image/verify',
        'GET /captcha/audio/key',
        'GET /captcha/audio',
        'POST /captcha/audio/verify',
        'GET /shorturl',
        'POST /shorturl',
        'POST /trends',
      ].sort(),
    );
    expect(new Set(catalogue.map((api) => api.id)).size).toBe(catalogue.length);
  });

  it('reaches the sixteen upstream APIs of docs/catalogue.md', () => {
    const upstream = new Set(catalogue.flatMap((api) => api.upstream.paths));
    expect([...upstream].sort()).toEqual(
      [
        '/voice/v1/tts',
        '/recog/v1/stt',
        '/smt/v1/translation',
        '/nmt/v1/translation',
        '/map-static/v2/raster',
        '/map-tile/v1/raster/styles/{MapType}/{Z}/{X}/{Y}@{Scale}x.{Format}',
        '/map-direction/v1/driving',
        '/map-place/v1/search',
        '/map-geocode/v2/geocode',
        '/map-reversegeocode/v2/gc',
        '/captcha/v1/nkey',
        '/captcha-bin/v1/ncaptcha',
        // The default path; the platform's public docs show /scaptcha/v1/skey (docs/catalogue.md).
        '/scaptcha/v1/nkey',
        '/scaptcha-bin/v1/scaptcha',
        '/util/v1/shorturl',
        '/datalab/v1/search',
      ].sort(),
    );
  });

  it('keeps each group in the function its module is bundled into', () => {
    const groups = {
      catalogueLanguage: languageEntries,
      catalogueMaps: mapsEntries,
      catalogueCaptcha: captchaEntries,
      catalogueUtility: utilityEntries,
    };
    for (const [name, apis] of Object.entries(groups)) {
      expect(apis.map((api) => api.function)).toEqual(apis.map(() => name));
    }
    expect(Object.values(groups).flat()).toHaveLength(catalogue.length);
  });

  it('is what the route registry lists for the catalogue functions, each behind its API scope', () => {
    const catalogueFunctions = new Set(catalogue.map((api) => api.function));
    const listed = routes.filter((route) => catalogueFunctions.has(route.function as never));
    expect(listed.map((route) => `${route.function} ${route.method} ${route.path}`).sort()).toEqual(
      catalogue.map((api) => `${api.function} ${routeKeyOf(api)}`).sort(),
    );
    for (const route of listed) {
      const entry = catalogue.find((api) => api.id === route.id)!;
      expect(route.access, route.id).toEqual({ scope: `catalogue:${entry.api}` });
    }
    // Every API of the scope vocabulary has routes, and every route one of its APIs.
    expect(new Set(catalogue.map((api) => api.api))).toEqual(new Set(CATALOGUE_APIS));
  });

  it('declares every parameter of a path template in its path schema', () => {
    for (const api of catalogue) {
      const names = [...api.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      if (names.length === 0) {
        expect(api.pathParams, api.id).toBeUndefined();
        continue;
      }
      const shape = (api.pathParams as unknown as { def: { shape: Record<string, unknown> } }).def
        .shape;
      expect(Object.keys(shape).sort(), api.id).toEqual(names.sort());
    }
  });

  it('sends raw bytes only where a raw body is accepted, and only POST routes take a body', () => {
    for (const api of catalogue) {
      expect(api.sends === 'raw', api.id).toBe(api.bytes !== undefined);
      if (api.body || api.bytes) expect(api.method, api.id).toBe('POST');
      else expect(api.method, api.id).toBe('GET');
    }
  });

  it('repeats upstream only what is safe: reads, never a metered POST or a single-use comparison', () => {
    for (const api of catalogue) {
      const expected = api.upstream.method === 'GET' && !api.id.endsWith('CaptchaVerify');
      expect(api.idempotent, api.id).toBe(expected);
    }
  });
});
