import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appCredentialsFrom, CatalogueClient } from '../../../../lib/catalogue/client.ts';
import { type CatalogueEntry, defineEntry } from '../../../../lib/catalogue/entry.ts';
import { catalogue } from '../../../../lib/catalogue/table.ts';
import { UpstreamError } from '../../../../lib/core/errors.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { Agent } from '../../../../lib/upstream/undici.ts';
import { testCall } from '../../../helpers/call-context.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';

const APP = { clientId: 'client-id-1', clientSecret: 'client-secret-1' };

function api(routeKey: string): CatalogueEntry {
  const found = catalogue.find((entry) => `${entry.method} ${entry.path}` === routeKey);
  if (!found) throw new Error(`no catalogue entry for ${routeKey}`);
  return found;
}

function parsed(
  apiEntry: CatalogueEntry,
  input: { body?: unknown; query?: unknown; path?: unknown; bytes?: Uint8Array },
) {
  const parse = (schema: CatalogueEntry['query'], value: unknown, empty: unknown) =>
    schema ? schema.parse(value) : empty;
  return {
    body: parse(apiEntry.body, input.body, undefined),
    query: parse(apiEntry.query, input.query ?? {}, {}),
    path: parse(apiEntry.pathParams, input.path ?? {}, {}),
    bytes: input.bytes ?? new Uint8Array(),
  };
}

describe('CatalogueClient', () => {
  let server: ScriptedServer;
  let other: ScriptedServer;
  let agent: InstanceType<typeof Agent>;
  let secret: ReturnType<typeof memorySecretSource>;
  let client: CatalogueClient;

  const json = (status: number, body: unknown, contentType = 'application/json') =>
    ((_req, res) => {
      res.writeHead(status, { 'content-type': contentType });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    }) satisfies ScriptedServer['script'];

  const makeClient = (serviceUrls = new Map<string, URL>(), baseUrl = server.url) =>
    new CatalogueClient({
      baseUrl,
      serviceUrls,
      vendor: 'NCP',
      credentials: appCredentialsFrom(
        new SecretStore(secret.source, { ttlMs: 60_000, minRefreshIntervalMs: 0 }),
      ),
      http: new UpstreamClient({
        dispatcher: agent,
        timeoutMs: 2000,
        backoff: { baseDelayMs: 1, maxDelayMs: 2 },
      }),
    });

  beforeAll(async () => {
    server = await startScriptedServer();
    other = await startScriptedServer();
    agent = new Agent();
  });
  beforeEach(() => {
    server.received.length = 0;
    other.received.length = 0;
    server.script = json(200, { ok: true });
    other.script = json(200, { other: true });
    secret = memorySecretSource({ openapi: APP });
    client = makeClient();
  });
  afterAll(async () => {
    await agent.close();
    await server.close();
    await other.close();
  });

  describe('the request on the wire', () => {
    it('sends the two credential headers with the vendor word, and the caller Accept only', async () => {
      const entry = api('GET /maps/geocode');
      await client.call(
        entry,
        parsed(entry, { query: { query: '불정로 6', count: '5' } }),
        {
          accept: 'application/xml',
        },
        testCall(),
      );
      const sent = server.received[0]!;
      expect(sent.method).toBe('GET');
      expect(sent.url).toBe('/map-geocode/v2/geocode?query=%EB%B6%88%EC%A0%95%EB%A1%9C+6&count=5');
      expect(sent.headers['x-ncp-apigw-api-key-id']).toBe(APP.clientId);
      expect(sent.headers['x-ncp-apigw-api-key']).toBe(APP.clientSecret);
      expect(sent.headers.accept).toBe('application/xml');
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.headers['x-ncp-apigw-signature-v2']).toBeUndefined();
    });

    it('sends no Accept when the caller sent none', async () => {
      const entry = api('GET /captcha/image/key');
      await client.call(entry, parsed(entry, {}), {}, testCall());
      expect(server.received[0]!.headers.accept).toBeUndefined();
      expect(server.received[0]!.url).toBe('/captcha/v1/nkey?code=0');
    });

    it('sends the translation as a UTF-8 form, on the engine the caller chose', async () => {
      const entry = api('POST /translate');
      await client.call(
        entry,
        parsed(entry, {
          body: { engine: 'smt', source: 'ko', target: 'en', text: '만나서 반갑습니다 & 1+1=2' },
        }),
        {},
        testCall(),
      );
      const sent = server.received[0]!;
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe('/smt/v1/translation');
      expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=UTF-8');
      expect(sent.body.toString('utf8')).toBe(
        `source=ko&target=en&text=${encodeURIComponent('만나서 반갑습니다 & 1+1=2').replace(/%20/g, '+')}`,
      );
      expect(new URLSearchParams(sent.body.toString('utf8')).get('text')).toBe(
        '만나서 반갑습니다 & 1+1=2',
      );
    });

    it('sends NMT options only when given', async () => {
      const entry = api('POST /translate');
      await client.call(
        entry,
        parsed(entry, {
          body: { source: 'auto', target: 'ja', text: 'hi', honorific: true, glossaryKey: 'g-1' },
        }),
        {},
        testCall(),
      );
      expect(server.received[0]!.url).toBe('/nmt/v1/translation');
      expect(server.received[0]!.body.toString()).toBe(
        'source=auto&target=ja&text=hi&honorific=true&glossaryKey=g-1',
      );
    });

    it('sends speech synthesis as a form with a speed, always', async () => {
      const entry = api('POST /tts');
      await client.call(
        entry,
        parsed(entry, { body: { speaker: 'clara', text: 'Hello' } }),
        {},
        testCall(),
      );
      expect(server.received[0]!.url).toBe('/voice/v1/tts');
      expect(server.received[0]!.body.toString()).toBe('speaker=clara&speed=0&text=Hello');
    });

    it('sends the recognition audio as raw bytes with the language in the query', async () => {
      const entry = api('POST /stt');
      const audio = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10, 13]);
      await client.call(
        entry,
        parsed(entry, { bytes: audio, query: { lang: 'Eng' } }),
        {},
        testCall(),
      );
      const sent = server.received[0]!;
      expect(sent.url).toBe('/recog/v1/stt?lang=Eng');
      expect(sent.headers['content-type']).toBe('application/octet-stream');
      expect(sent.body.equals(audio)).toBe(true);
    });

    it('sends the search trend as JSON', async () => {
      const entry = api('POST /trends');
      const body = {
        startDate: '2017-01-01',
        endDate: '2017-04-30',
        timeUnit: 'month',
        keywordGroups: [{ groupName: '한글', keywords: ['한글', 'korean'] }],
        ages: ['1', '11'],
      };
      await client.call(entry, parsed(entry, { body }), {}, testCall());
      const sent = server.received[0]!;
      expect(sent.url).toBe('/datalab/v1/search');
      expect(sent.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(JSON.parse(sent.body.toString('utf8'))).toEqual(body);
    });

    it('sends CAPTCHA comparison as a GET with code=1 although the caller POSTs', async () => {
      const entry = api('POST /captcha/audio/verify');
      await client.call(
        entry,
        parsed(entry, { body: { key: 'k3Y_1', value: '1234' } }),
        {},
        testCall(),
      );
      expect(server.received[0]!.method).toBe('GET');
      expect(server.received[0]!.url).toBe('/scaptcha/v1/nkey?code=1&key=k3Y_1&value=1234');
    });

    it('builds the tile path from the split {tile} segment', async () => {
      const entry = api('GET /maps/tiles/{mapType}/{z}/{x}/{tile}');
      await client.call(
        entry,
        parsed(entry, {
          path: { mapType: 'basic', z: '3', x: '5', tile: '2@2x.png' },
          query: { mt: 'bg.ol.ts' },
        }),
        {},
        testCall(),
      );
      expect(server.received[0]!.url).toBe(
        '/map-tile/v1/raster/styles/basic/3/5/2@2x.png?mt=bg.ol.ts',
      );
    });

    it('repeats markers in the order given', async () => {
      const entry = api('GET /maps/static');
      await client.call(
        entry,
        parsed(entry, {
          query: {
            w: '300',
            h: '200',
            markers: ['type:d|pos:127.1 37.3', 'type:d|pos:127.2 37.4'],
          },
        }),
        {},
        testCall(),
      );
      expect(server.received[0]!.url).toBe(
        '/map-static/v2/raster?w=300&h=200&markers=type%3Ad%7Cpos%3A127.1+37.3&markers=type%3Ad%7Cpos%3A127.2+37.4',
      );
    });
  });

  describe('hosts', () => {
    it('sends a service to the host OPENAPI_SERVICE_URLS names for its first segment', async () => {
      const routed = makeClient(new Map([['nmt', new URL(`${other.url.origin}/papago/`)]]));
      const translate = api('POST /translate');
      await routed.call(
        translate,
        parsed(translate, { body: { source: 'ko', target: 'en', text: 'a' } }),
        {},
        testCall(),
      );
      const smt = parsed(translate, {
        body: { engine: 'smt', source: 'ko', target: 'en', text: 'a' },
      });
      await routed.call(translate, smt, {}, testCall());
      expect(other.received.map((r) => r.url)).toEqual(['/papago/nmt/v1/translation']);
      expect(server.received.map((r) => r.url)).toEqual(['/smt/v1/translation']);
    });

    it('keeps the base URL path prefix', async () => {
      const prefixed = makeClient(new Map(), new URL(`${server.url.origin}/openapi/`));
      const entry = api('GET /captcha/image/key');
      await prefixed.call(entry, parsed(entry, {}), {}, testCall());
      expect(server.received[0]!.url).toBe('/openapi/captcha/v1/nkey?code=0');
    });
  });

  describe('answers', () => {
    it('returns a binary answer byte for byte', async () => {
      const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0xff, 0xd9]);
      server.script = (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        res.end(bytes);
      };
      const entry = api('GET /captcha/image');
      const response = await client.call(
        entry,
        parsed(entry, { query: { key: 'abc' } }),
        {},
        testCall(),
      );
      expect(response.body.equals(bytes)).toBe(true);
      expect(response.headers['content-type']).toBe('image/jpeg');
    });

    it.each([
      [
        'POST /translate',
        { body: { source: 'ko', target: 'en', text: 'a' } },
        400,
        { errorCode: 'N2MT05', errorMessage: 'source and target must be different' },
        'N2MT05',
      ],
      [
        'POST /translate',
        { body: { source: 'ko', target: 'en', text: 'a' } },
        400,
        { error: { errorCode: 'N2MT08', message: 'text parameter exceeds max length' } },
        'N2MT08',
      ],
      [
        'POST /tts',
        { body: { speaker: 'clara', text: 'a' } },
        400,
        { error: { errorCode: 'VS02', message: 'Unsupported speaker.' } },
        'VS02',
      ],
      [
        'POST /stt',
        { body: Buffer.from('x'), query: { lang: 'Kor' } },
        413,
        { error: { errorCode: 'STT001', message: 'Exceed Sound Data length' } },
        'STT001',
      ],
      [
        'POST /captcha/image/verify',
        { body: { key: 'used', value: 'x' } },
        400,
        { result: false, errorMessage: 'Invalid key.', errorCode: 'CT001' },
        'CT001',
      ],
      [
        'GET /maps/directions',
        { query: { start: '127.1,37.3', goal: '127.1,37.3' } },
        400,
        { error: { errorCode: 400, code: 1, message: '출발지와 도착지가 동일합니다.' } },
        '1',
      ],
      [
        'GET /maps/reverse-geocode',
        { query: { coords: '127.1,37.3' } },
        500,
        { status: { code: 900, name: 'unexpected error', message: 'failed' } },
        '900',
      ],
    ])(
      'turns an error answer of %s into its own code',
      async (route, input, status, body, code) => {
        server.script = json(status, body);
        const entry = api(route);
        const error = await client
          .call(entry, parsed(entry, input), {}, testCall())
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({ status, code });
      },
    );

    it('keeps the status as the code of an empty error answer', async () => {
      server.script = (_req, res) => {
        res.writeHead(403, { 'x-ncp-apigw-response-origin': 'ENDPOINT' });
        res.end();
      };
      const entry = api('GET /maps/static');
      const error = await client
        .call(entry, parsed(entry, { query: { w: '1', h: '1', center: '1,1' } }), {}, testCall())
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 403, code: '403', message: 'Forbidden' });
    });

    it.each([
      [
        'GET /maps/geocode',
        { query: { query: 'x' } },
        { status: 'INVALID_REQUEST', errorMessage: 'query is INVALID' },
        'INVALID_REQUEST',
        'query is INVALID',
      ],
      [
        'GET /maps/places',
        { query: { query: 'x' } },
        { status: 'SYSTEM_ERROR', errorMessage: 'try later', places: [] },
        'SYSTEM_ERROR',
        'try later',
      ],
      [
        'GET /maps/directions',
        { query: { start: '127.1,37.3', goal: '127.1,37.3' } },
        { code: 1, message: '출발지와 도착지가 동일합니다.' },
        '1',
        '출발지와 도착지가 동일합니다.',
      ],
      [
        'GET /maps/reverse-geocode',
        { query: { coords: '127.1,37.3' } },
        { status: { code: 100, name: 'invalid request', message: 'invalid coords' } },
        '100',
        'invalid coords',
      ],
    ])(
      'turns a failure inside a 200 body of %s into a 400',
      async (route, input, body, code, message) => {
        server.script = json(200, body);
        const entry = api(route);
        const error = await client
          .call(entry, parsed(entry, input), {}, testCall())
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({ status: 400, code, message });
      },
    );

    it('finds a reverse-geocoding failure in an XML answer too', async () => {
      server.script = json(
        200,
        '<?xml version="1.0"?><response><status><code>100</code><name>invalid request</name><message>bad coords</message></status></response>',
        'application/xml',
      );
      const entry = api('GET /maps/reverse-geocode');
      const error = await client
        .call(entry, parsed(entry, { query: { coords: '1,1', output: 'xml' } }), {}, testCall())
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 400, code: '100', message: 'bad coords' });
    });

    it.each([
      [
        'GET /maps/geocode',
        { query: { query: 'x' } },
        { status: 'OK', meta: { totalCount: 0 }, addresses: [], errorMessage: '' },
      ],
      [
        'GET /maps/directions',
        { query: { start: '1,1', goal: '2,2' } },
        { code: 0, message: 'ok', route: {} },
      ],
      [
        'GET /maps/reverse-geocode',
        { query: { coords: '1,1' } },
        { status: { code: 3, name: 'no results', message: '' }, results: [] },
      ],
      [
        'GET /maps/reverse-geocode',
        { query: { coords: '1,1' } },
        { status: { code: 0, name: 'ok', message: 'done' }, results: [] },
      ],
    ])('passes a success or an empty result of %s through', async (route, input, body) => {
      server.script = json(200, body);
      const entry = api(route);
      const response = await client.call(entry, parsed(entry, input), {}, testCall());
      expect(JSON.parse(response.body.toString())).toEqual(body);
    });

    it('passes an XML reverse-geocoding success through', async () => {
      const xml =
        '<?xml version="1.0"?><response><status><code>0</code><name>ok</name></status><results/></response>';
      server.script = json(200, xml, 'application/xml');
      const entry = api('GET /maps/reverse-geocode');
      const response = await client.call(
        entry,
        parsed(entry, { query: { coords: '1,1' } }),
        {},
        testCall(),
      );
      expect(response.body.toString()).toBe(xml);
    });
  });

  describe('retries', () => {
    it('does not repeat a POST the platform may have seen (503)', async () => {
      server.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error');
      const entry = api('POST /tts');
      const error = await client
        .call(entry, parsed(entry, { body: { speaker: 'clara', text: 'a' } }), {}, testCall())
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, code: '500' });
      expect(server.received).toHaveLength(1);
    });

    it('does not repeat a CAPTCHA comparison, a GET that uses up its key', async () => {
      server.script = (_req, res) => gatewayError(res, 504, '510', 'Endpoint Timeout');
      const entry = api('POST /captcha/image/verify');
      await client
        .call(entry, parsed(entry, { body: { key: 'k', value: 'v' } }), {}, testCall())
        .catch(() => {});
      expect(server.received).toHaveLength(1);
    });

    it('repeats a GET that read nothing yet (503 then 200)', async () => {
      server.script = (_req, res, index) =>
        index === 0 ? gatewayError(res, 503, '500') : json(200, { key: 'k' })(_req, res);
      const entry = api('GET /captcha/image/key');
      const response = await client.call(entry, parsed(entry, {}), {}, testCall());
      expect(JSON.parse(response.body.toString())).toEqual({ key: 'k' });
      expect(server.received).toHaveLength(2);
    });

    it('fetches the secret again after an authentication failure and repeats once with new credentials', async () => {
      server.script = (req, res) => {
        if (req.headers['x-ncp-apigw-api-key'] === 'rotated')
          return json(200, { key: 'k' })(req, res);
        // The secret was rotated while the old one was still cached.
        secret.state.text = JSON.stringify({ openapi: { ...APP, clientSecret: 'rotated' } });
        gatewayError(res, 401, '200', 'Authentication Failed');
      };
      const entry = api('GET /captcha/image/key');
      const response = await client.call(entry, parsed(entry, {}), {}, testCall());
      expect(response.status).toBe(200);
      expect(server.received).toHaveLength(2);
    });

    it("answers the authentication failure as the operator's 500/900 when the secret did not change", async () => {
      server.script = (_req, res) => gatewayError(res, 401, '200', 'Authentication Failed');
      const entry = api('GET /captcha/image/key');
      const error = await client
        .call(entry, parsed(entry, {}), {}, testCall())
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        status: 500,
        code: '900',
        refusal: { status: 401, code: '200' },
      });
      expect(server.received).toHaveLength(1);
    });
  });

  it('refuses to call without openapi credentials in the secret', async () => {
    secret = memorySecretSource({ apiKey: 'gateway-api-key' });
    const entry = api('GET /captcha/image/key');
    const error = await makeClient()
      .call(entry, parsed(entry, {}), {}, testCall())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, code: '900' });
    expect(server.received).toHaveLength(0);
  });

  it('lets an entry send what its table row says, nothing else', () => {
    const custom = defineEntry<undefined, { q: string }>({
      id: 'custom',
      api: 'shorturl',
      function: 'catalogueUtility',
      method: 'GET',
      path: '/x',
      summary: 'x',
      upstream: { method: 'GET', paths: ['/svc/v1/x'] },
      sends: 'query',
      answers: { kind: 'json', contentTypes: ['application/json'] },
      idempotent: true,
      toUpstream: ({ query }) => ({ params: [['q', query.q]] }),
    });
    const wire = client.wireRequest(custom, {
      body: undefined,
      query: { q: 'a b' },
      path: {},
      bytes: new Uint8Array(),
    });
    expect(wire.url.pathname + wire.url.search).toBe('/svc/v1/x?q=a+b');
    expect(wire.body).toBeUndefined();
  });
});
