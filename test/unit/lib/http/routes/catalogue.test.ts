import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { type CatalogueEntry, defineEntry } from '../../../../../lib/catalogue/entry.ts';
import { catalogue } from '../../../../../lib/catalogue/table.ts';
import { routeOfEntry } from '../../../../../lib/http/routes/catalogue.ts';
import { catalogueDocsOf } from '../../../../../lib/http/routes/docs/catalogue.ts';
import type { Route } from '../../../../../lib/http/routes/route.ts';

const entry = (changes: Partial<CatalogueEntry>): CatalogueEntry =>
  ({
    ...defineEntry({
      id: 'testEntry',
      function: 'catalogueMaps',
      api: 'maps',
      method: 'GET',
      path: '/maps/test',
      summary: 'A test API',
      upstream: { method: 'GET', paths: ['/map-test/v1/a', '/map-test/v1/b'] },
      sends: 'query',
      answers: { kind: 'json', contentTypes: ['application/json'] },
      idempotent: true,
      query: z.object({ q: z.string() }),
      toUpstream: () => ({}),
    }),
    ...changes,
  }) as CatalogueEntry;

describe('routeOfEntry', () => {
  it("is the entry's route, served by its function, behind its API's scope", () => {
    const given = entry({});
    const route = routeOfEntry(given);
    expect(route).toMatchObject({
      function: 'catalogueMaps',
      id: 'testEntry',
      method: 'GET',
      path: '/maps/test',
      access: { scope: 'catalogue:maps' },
      summary: 'A test API',
      tag: 'catalogue',
    });
    expect(route.input?.query).toBe(given.query);
  });

  it('takes a body of bytes, checked by the stack and required, where the entry sends raw bytes', () => {
    const raw = routeOfEntry(entry({ sends: 'raw', bytes: ['application/octet-stream'] }));
    expect(raw.input?.bytes).toEqual({
      contentTypes: ['application/octet-stream'],
      required: true,
      checkedBy: 'stack',
    });
    expect(routeOfEntry(entry({})).input?.bytes).toBeUndefined();
  });

  it("spends of the caller's plans one request, or the characters of `text` for translation and speech", () => {
    const spends = (route: Route) => {
      if (typeof route.spends !== 'function') throw new Error(`${route.id} spends per request`);
      return route.spends;
    };
    expect(spends(routeOfEntry(entry({})))({ body: undefined })).toEqual({ requests: 1 });
    const translate = routeOfEntry(entry({ api: 'translate', sends: 'json' }));
    expect(spends(translate)({ body: { text: '안녕하세요' } })).toEqual({
      requests: 1,
      characters: { api: 'translate', count: 5 },
    });
  });

  it('gives every entry of the table a route of its own', () => {
    const keys = catalogue.map(routeOfEntry).map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(catalogue.length);
  });
});

describe("a catalogue route's docs", () => {
  it('says in its description what it calls upstream, and how the input is sent', () => {
    expect(catalogueDocsOf(entry({})).description).toBe(
      'Calls `GET /map-test/v1/a or /map-test/v1/b` with query parameters.',
    );
    const form = entry({
      description: 'Shortens a URL.',
      sends: 'form',
      upstream: { method: 'POST', paths: ['/x'] },
    });
    expect(catalogueDocsOf(form).description).toBe(
      'Shortens a URL. Calls `POST /x` with an application/x-www-form-urlencoded UTF-8 body.',
    );
    expect(catalogueDocsOf(entry({ sends: 'json' })).description).toContain('with a JSON body.');
    expect(catalogueDocsOf(entry({ sends: 'raw' })).description).toContain(
      'with the raw bytes of the request body.',
    );
  });

  it('documents a JSON answer as an object, bytes as binary, and a JSON-or-XML answer as neither', () => {
    const [json] = catalogueDocsOf(entry({})).responses;
    expect(json).toMatchObject({ status: 200, binary: false, schema: { type: 'object' } });
    const [bytes] = catalogueDocsOf(
      entry({ answers: { kind: 'binary', contentTypes: ['image/png'] } }),
    ).responses;
    expect(bytes).toMatchObject({ binary: true, contentTypes: ['image/png'] });
    expect(bytes?.schema).toBeUndefined();
    expect(bytes?.description).toContain('bytes');
    const [either] = catalogueDocsOf(
      entry({ answers: { kind: 'json-or-xml', contentTypes: ['application/json', 'text/xml'] } }),
    ).responses;
    expect(either?.schema).toBeUndefined();
  });
});
