/**
 * The catalogue functions invoked as Lambda invokes them, with the real middy stack, over
 * loopback against the embedded emulator: for every API a valid call, an input refused before
 * sending, an upstream error turned into the envelope, and for binary answers the exact bytes.
 */

import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Fault } from '../../../emulator/index.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { demoSecret, emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.ts';

const CATALOGUE_FUNCTIONS = {
  language: 'functions/catalogue/language.ts',
  maps: 'functions/catalogue/maps.ts',
  captcha: 'functions/catalogue/captcha.ts',
  utility: 'functions/catalogue/utility.ts',
} as const;
type Group = keyof typeof CATALOGUE_FUNCTIONS;
type Handlers = Record<Group, HttpHandler>;
type ErrorBody = { error: { errorCode: string; message: string; details?: unknown } };
type Result = Awaited<ReturnType<HttpHandler>>;

interface Call {
  /** Query string as sent. */
  query?: string;
  /** A JSON body. */
  json?: unknown;
  /** Raw bytes (sent base64-encoded, as API Gateway does for binary bodies). */
  raw?: Buffer;
  headers?: Record<string, string | undefined>;
  /** Concrete path, for routes with path parameters. */
  path?: string;
  pathParameters?: Record<string, string>;
}

const TILE_ROUTE = 'GET /maps/tiles/{mapType}/{z}/{x}/{tile}';
const TRENDS = {
  startDate: '2017-01-01',
  endDate: '2017-04-30',
  timeUnit: 'month',
  keywordGroups: [{ groupName: '한글', keywords: ['한글', 'korean'] }],
};
const GREEN_FACTORY = '127.1054328,37.3595963';
const BUSAN_STATION = '129.0759853,35.1794697';

function eventFor(routeKey: string, call: Call) {
  const [method = 'GET', routePath = '/'] = routeKey.split(' ');
  const headers: Record<string, string | undefined> = { ...call.headers };
  let body: string | undefined;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] ??= 'application/json';
  } else if (call.raw) {
    body = call.raw.toString('base64');
    headers['content-type'] ??= 'application/octet-stream';
  }
  const event = httpEvent('catalogue-language.json', {
    method,
    path: call.path ?? routePath,
    query: call.query ?? '',
    headers: { 'content-type': undefined, ...headers },
    body,
    isBase64Encoded: call.raw !== undefined,
    ...(call.pathParameters ? { pathParameters: call.pathParameters } : {}),
  });
  event.routeKey = routeKey;
  event.requestContext.routeKey = routeKey;
  return event;
}

function bytesOf(result: Result): Buffer {
  expect(result.isBase64Encoded).toBe(true);
  return Buffer.from(result.body ?? '', 'base64');
}

describe('catalogue functions against the emulator', () => {
  const emulator = emulatorForSuite();
  let fn: Handlers;
  let agent: InstanceType<typeof Agent>;
  let credentials: Record<string, string>;

  const call = (group: Group, routeKey: string, input: Call = {}) =>
    fn[group](eventFor(routeKey, input), lambdaContext());

  /** What the emulator answers to this exact request made directly, with the demo app's keys. */
  async function direct(method: 'GET' | 'POST', pathAndQuery: string, body?: string) {
    const answer = await agent.request({
      origin: emulator.url,
      path: pathAndQuery,
      method,
      headers: {
        ...credentials,
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } : {}),
      },
      body,
    });
    return {
      contentType: String(answer.headers['content-type']),
      bytes: Buffer.from(await answer.body.arrayBuffer()),
    };
  }

  const upstream = () => emulator.requests;
  const addFault = (fault: Fault) => emulator.faults.add(fault);

  function expectRefused(result: Result, path: string) {
    expect(result.statusCode).toBe(400);
    const body = jsonBody(result) as ErrorBody;
    expect(body.error.errorCode).toBe('100');
    expect((body.error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    expect(upstream()).toHaveLength(0);
  }

  function expectEnvelope(result: Result, status: number, errorCode: string, message?: string) {
    expect(result.statusCode).toBe(status);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    const body = jsonBody(result) as ErrorBody;
    expect(body.error.errorCode).toBe(errorCode);
    if (message !== undefined) expect(body.error.message).toBe(message);
    expect(Object.keys(body)).toEqual(['error']);
  }

  beforeAll(async () => {
    fn = await loadHandlers(emulatorEnv(emulator), CATALOGUE_FUNCTIONS);
    agent = new Agent();
    const app = (await demoSecret()).openapi!;
    credentials = {
      [emulator.headers.apiKeyId]: app.clientId,
      [emulator.headers.apiKey]: app.clientSecret,
    };
  });
  beforeEach(() => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await agent.close();
  });

  describe('POST /translate', () => {
    it('translates with NMT, sending a UTF-8 form with the app credentials', async () => {
      const result = await call('language', 'POST /translate', {
        json: { source: 'ko', target: 'en', text: '만나서 반갑습니다.' },
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({
        message: { result: { srcLangType: 'ko', tarLangType: 'en', engineType: 'N2MT' } },
      });
      const sent = upstream()[0]!;
      expect(sent.url).toBe('/nmt/v1/translation');
      expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=UTF-8');
      expect(new URLSearchParams(sent.body).get('text')).toBe('만나서 반갑습니다.');
      expect(sent.headers[emulator.headers.apiKeyId]).toBe(credentials[emulator.headers.apiKeyId]);
      expect(sent.headers.authorization).toBeUndefined();
    });

    it('uses the SMT engine when asked', async () => {
      const result = await call('language', 'POST /translate', {
        json: { engine: 'smt', source: 'ko', target: 'en', text: '안녕하세요' },
      });
      expect(result.statusCode).toBe(200);
      expect(upstream()[0]!.url).toBe('/smt/v1/translation');
    });

    it('refuses source equal to target before sending', async () => {
      expectRefused(
        await call('language', 'POST /translate', {
          json: { source: 'en', target: 'en', text: 'a' },
        }),
        'body.target',
      );
    });

    it('refuses a body that is not JSON before sending', async () => {
      expectRefused(
        await call('language', 'POST /translate', {
          raw: Buffer.from('source=ko'),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        'headers.content-type',
      );
    });

    it("answers Papago's own error code in the envelope", async () => {
      addFault({
        kind: 'status',
        status: 400,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/nmt/' },
        body: JSON.stringify({
          errorMessage: 'There is no source-to-target translator.',
          errorCode: 'N2MT06',
        }),
      });
      const result = await call('language', 'POST /translate', {
        json: { source: 'th', target: 'vi', text: 'a' },
      });
      expectEnvelope(result, 400, 'N2MT06', 'There is no source-to-target translator.');
    });
  });

  describe('POST /tts', () => {
    it('answers the MP3 bytes exactly as the platform sent them', async () => {
      const result = await call('language', 'POST /tts', {
        json: { speaker: 'clara', text: 'Hello there' },
      });
      expect(result.statusCode).toBe(200);
      expect(upstream()[0]!.body).toBe('speaker=clara&speed=0&text=Hello+there');
      const expected = await direct('POST', '/voice/v1/tts', upstream()[0]!.body);
      expect(result.headers?.['content-type']).toBe(expected.contentType);
      expect(bytesOf(result).equals(expected.bytes)).toBe(true);
      expect(bytesOf(result).subarray(0, 2).toString('hex')).toBe('fffb');
    });

    it('answers WAV bytes when format=wav', async () => {
      const result = await call('language', 'POST /tts', {
        json: { speaker: 'matt', text: 'Hi', format: 'wav', speed: 2, pitch: -1, volume: 3 },
      });
      const expected = await direct('POST', '/voice/v1/tts', upstream()[0]!.body);
      expect(result.headers?.['content-type']).toBe('audio/wav');
      expect(bytesOf(result).equals(expected.bytes)).toBe(true);
      expect(bytesOf(result).subarray(0, 4).toString('latin1')).toBe('RIFF');
    });

    it('refuses a speed outside -5..5 before sending', async () => {
      expectRefused(
        await call('language', 'POST /tts', { json: { speaker: 'clara', text: 'a', speed: 9 } }),
        'body.speed',
      );
    });

    it('answers the VS code of the speech API in the envelope, never retrying the POST', async () => {
      addFault({
        kind: 'status',
        status: 503,
        origin: 'APIGW',
        errorCode: '500',
        match: { pathPrefix: '/voice/' },
      });
      expectEnvelope(
        await call('language', 'POST /tts', { json: { speaker: 'clara', text: 'a' } }),
        503,
        '500',
      );
      expect(upstream()).toHaveLength(1);
      addFault({
        kind: 'status',
        status: 400,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/voice/' },
        body: JSON.stringify({
          error: { errorCode: 'VS05', message: 'text parameter is needed.' },
        }),
      });
      expectEnvelope(
        await call('language', 'POST /tts', { json: { speaker: 'clara', text: 'a' } }),
        400,
        'VS05',
        'text parameter is needed.',
      );
    });
  });

  describe('POST /stt', () => {
    const audio = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0xff, 0x80, 0x7f, 1, 2, 3])]);

    it('sends the raw audio byte for byte and answers the recognised text', async () => {
      const result = await call('language', 'POST /stt', { query: 'lang=Kor', raw: audio });
      expect(result.statusCode).toBe(200);
      expect(typeof (jsonBody(result) as { text: unknown }).text).toBe('string');
      const sent = upstream()[0]!;
      expect(sent.url).toBe('/recog/v1/stt?lang=Kor');
      expect(sent.headers['content-type']).toBe('application/octet-stream');
      expect(sent.bodyLength).toBe(audio.length);
      expect(Buffer.from(sent.body ?? '', 'utf8').length).toBeGreaterThan(0);
    });

    it.each([
      ['no language', { raw: audio }, 'query.lang'],
      ['an unknown language', { query: 'lang=Fra', raw: audio }, 'query.lang'],
      ['a JSON body', { query: 'lang=Kor', json: { audio: 'x' } }, 'headers.content-type'],
      ['an empty body', { query: 'lang=Kor', raw: Buffer.alloc(0) }, 'body'],
    ] as const)('refuses %s before sending', async (_name, input, path) => {
      expectRefused(await call('language', 'POST /stt', input as Call), path);
    });

    it('answers the STT code of the recognition API in the envelope', async () => {
      addFault({
        kind: 'status',
        status: 413,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/recog/' },
        body: JSON.stringify({
          error: { errorCode: 'STT001', message: 'Exceed Sound Data length' },
        }),
      });
      expectEnvelope(
        await call('language', 'POST /stt', { query: 'lang=Eng', raw: audio }),
        413,
        'STT001',
        'Exceed Sound Data length',
      );
    });
  });

  describe('GET /maps/static', () => {
    const query = `w=300&h=200&center=${GREEN_FACTORY}&level=16&markers=${encodeURIComponent(
      `type:d|size:mid|pos:${GREEN_FACTORY.replace(',', ' ')}`,
    )}`;

    it('answers the image bytes exactly, with the platform Content-Type', async () => {
      const result = await call('maps', 'GET /maps/static', { query });
      expect(result.statusCode).toBe(200);
      const sent = upstream()[0]!;
      expect(sent.url.startsWith('/map-static/v2/raster?w=300&h=200&center=')).toBe(true);
      const expected = await direct('GET', sent.url);
      expect(result.headers?.['content-type']).toBe(expected.contentType);
      expect(bytesOf(result).equals(expected.bytes)).toBe(true);
      expect(bytesOf(result).subarray(0, 2).toString('hex')).toBe('ffd8');
    });

    it('refuses a request without w before sending', async () => {
      expectRefused(
        await call('maps', 'GET /maps/static', { query: `h=200&center=${GREEN_FACTORY}` }),
        'query.w',
      );
    });

    it("answers the platform's empty 403 as the envelope with the status as code", async () => {
      addFault({
        kind: 'status',
        status: 403,
        origin: 'ENDPOINT',
        body: '',
        match: { pathPrefix: '/map-static/' },
      });
      expectEnvelope(await call('maps', 'GET /maps/static', { query }), 403, '403', 'Forbidden');
    });
  });

  describe(TILE_ROUTE, () => {
    const tile = {
      path: '/maps/tiles/basic/7/109/49@2x.png',
      pathParameters: { mapType: 'basic', z: '7', x: '109', tile: '49@2x.png' },
    };

    it('answers the PNG bytes of the tile exactly', async () => {
      const result = await call('maps', TILE_ROUTE, { ...tile, query: 'mt=bg.ol' });
      expect(result.statusCode).toBe(200);
      const sent = upstream()[0]!;
      expect(sent.url).toBe('/map-tile/v1/raster/styles/basic/7/109/49@2x.png?mt=bg.ol');
      const expected = await direct('GET', sent.url);
      expect(result.headers?.['content-type']).toBe(expected.contentType);
      expect(bytesOf(result).equals(expected.bytes)).toBe(true);
      expect(bytesOf(result).subarray(1, 4).toString('latin1')).toBe('PNG');
    });

    it('refuses a tile segment without a scale before sending', async () => {
      expectRefused(
        await call('maps', TILE_ROUTE, {
          path: '/maps/tiles/basic/7/109/49.png',
          pathParameters: { mapType: 'basic', z: '7', x: '109', tile: '49.png' },
        }),
        'path.tile',
      );
    });

    it('answers a gateway error as the envelope', async () => {
      addFault({
        kind: 'status',
        status: 429,
        errorCode: '420',
        match: { pathPrefix: '/map-tile/' },
        times: 0,
      });
      expectEnvelope(await call('maps', TILE_ROUTE, tile), 429, '420', 'Rate Limited');
    });
  });

  describe('GET /maps/directions', () => {
    it('answers a route', async () => {
      const result = await call('maps', 'GET /maps/directions', {
        query: `start=${GREEN_FACTORY}&goal=${BUSAN_STATION}&option=trafast`,
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ code: 0 });
      expect(upstream()[0]!.url).toBe(
        `/map-direction/v1/driving?start=${encodeURIComponent(GREEN_FACTORY)}&goal=${encodeURIComponent(BUSAN_STATION)}&option=trafast`,
      );
    });

    it('refuses an unknown option before sending', async () => {
      expectRefused(
        await call('maps', 'GET /maps/directions', {
          query: `start=${GREEN_FACTORY}&goal=${BUSAN_STATION}&option=fastest`,
        }),
        'query.option',
      );
    });

    it("answers the API's code 1 (start equals goal) as a 400 envelope", async () => {
      const result = await call('maps', 'GET /maps/directions', {
        query: `start=${GREEN_FACTORY}&goal=${GREEN_FACTORY}`,
      });
      expectEnvelope(result, 400, '1');
    });

    it('turns code 1 inside a 200 body into the same 400 envelope', async () => {
      addFault({
        kind: 'status',
        status: 200,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/map-direction/' },
        body: JSON.stringify({ code: 1, message: '출발지와 도착지가 동일합니다.' }),
      });
      const result = await call('maps', 'GET /maps/directions', {
        query: `start=${GREEN_FACTORY}&goal=${GREEN_FACTORY}`,
      });
      expectEnvelope(result, 400, '1', '출발지와 도착지가 동일합니다.');
    });
  });

  describe('GET /maps/places', () => {
    it('answers places near the coordinate', async () => {
      const result = await call('maps', 'GET /maps/places', {
        query: `query=${encodeURIComponent('강남역')}&coordinate=127.02,37.49`,
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ status: 'OK' });
    });

    it('refuses a search without query before sending', async () => {
      expectRefused(
        await call('maps', 'GET /maps/places', { query: 'coordinate=127.02,37.49' }),
        'query.query',
      );
    });

    it('turns a status other than OK in a 200 body into a 400 envelope', async () => {
      addFault({
        kind: 'status',
        status: 200,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/map-place/' },
        body: JSON.stringify({ status: 'SYSTEM_ERROR', errorMessage: 'system error', places: [] }),
      });
      expectEnvelope(
        await call('maps', 'GET /maps/places', { query: 'query=a' }),
        400,
        'SYSTEM_ERROR',
        'system error',
      );
    });
  });

  describe('GET /maps/geocode', () => {
    it('answers the address with string coordinates', async () => {
      const result = await call('maps', 'GET /maps/geocode', {
        query: `query=${encodeURIComponent('분당구 불정로 6')}&count=5`,
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({
        status: 'OK',
        addresses: [{ x: expect.any(String), y: expect.any(String) }],
      });
    });

    it('answers an empty result as a success', async () => {
      const result = await call('maps', 'GET /maps/geocode', {
        query: `query=${encodeURIComponent('없는 주소 99999')}`,
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ status: 'OK', addresses: [] });
    });

    it('refuses count 101 before sending', async () => {
      expectRefused(
        await call('maps', 'GET /maps/geocode', { query: 'query=a&count=101' }),
        'query.count',
      );
    });

    it("turns the platform's INVALID_REQUEST inside a 200 body into a 400 envelope", async () => {
      // A blank query passes the length check here; the platform refuses it inside a 200.
      const result = await call('maps', 'GET /maps/geocode', { query: 'query=%20%20' });
      expectEnvelope(result, 400, 'INVALID_REQUEST', 'query is INVALID');
      expect(upstream()).toHaveLength(1);
    });
  });

  describe('GET /maps/reverse-geocode', () => {
    it('answers JSON when output=json', async () => {
      const result = await call('maps', 'GET /maps/reverse-geocode', {
        query: `coords=${BUSAN_STATION}&output=json`,
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ status: { code: 0 } });
    });

    it('answers XML when output=xml, unchanged', async () => {
      const result = await call('maps', 'GET /maps/reverse-geocode', {
        query: `coords=${BUSAN_STATION}&output=xml`,
      });
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toMatch(/^application\/xml/);
      const expected = await direct('GET', upstream()[0]!.url);
      expect(result.body).toBe(expected.bytes.toString('utf8'));
    });

    it('answers "no results" (code 3) as a success', async () => {
      const result = await call('maps', 'GET /maps/reverse-geocode', {
        query: 'coords=0,0&output=json',
      });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ status: { code: 3 }, results: [] });
    });

    it('refuses a request without coords before sending', async () => {
      expectRefused(
        await call('maps', 'GET /maps/reverse-geocode', { query: 'output=json' }),
        'query.coords',
      );
    });

    it("answers the API's code 100 as the envelope", async () => {
      addFault({
        kind: 'status',
        status: 400,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/map-reversegeocode/' },
        body: JSON.stringify({ status: { code: 100, name: 'invalid request', message: 'bad' } }),
      });
      expectEnvelope(
        await call('maps', 'GET /maps/reverse-geocode', { query: `coords=${BUSAN_STATION}` }),
        400,
        '100',
        'bad',
      );
    });
  });

  describe.each(['image', 'audio'] as const)('the %s CAPTCHA', (kind) => {
    const media = kind === 'image' ? 'image/jpeg' : 'audio/wav';
    const binPath = kind === 'image' ? '/captcha-bin/v1/ncaptcha' : '/scaptcha-bin/v1/scaptcha';
    const keyPath = kind === 'image' ? '/captcha/v1/nkey' : '/scaptcha/v1/nkey';

    async function issueKey(): Promise<string> {
      const result = await call('captcha', `GET /captcha/${kind}/key`);
      expect(result.statusCode).toBe(200);
      return (jsonBody(result) as { key: string }).key;
    }

    it('issues a key, serves its bytes exactly, and compares the right answer once', async () => {
      const key = await issueKey();
      expect(upstream()[0]!.url).toBe(`${keyPath}?code=0`);
      const result = await call('captcha', `GET /captcha/${kind}`, { query: `key=${key}` });
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toBe(media);
      const expected = await direct('GET', `${binPath}?key=${key}`);
      expect(bytesOf(result).equals(expected.bytes)).toBe(true);

      const answer = emulator.catalogue.captchaAnswer(key)!;
      const verify = await call('captcha', `POST /captcha/${kind}/verify`, {
        json: { key, value: answer },
      });
      expect(verify.statusCode).toBe(200);
      expect(jsonBody(verify)).toMatchObject({ result: true });
      const compare = upstream().find((r) => r.url.includes('code=1'))!;
      expect(compare.method).toBe('GET');
      expect(compare.url).toBe(`${keyPath}?code=1&key=${key}&value=${encodeURIComponent(answer)}`);
    });

    it('answers a wrong answer as result false', async () => {
      const key = await issueKey();
      const verify = await call('captcha', `POST /captcha/${kind}/verify`, {
        json: { key, value: 'definitely-wrong' },
      });
      expect(verify.statusCode).toBe(200);
      expect(jsonBody(verify)).toMatchObject({ result: false });
    });

    it('refuses an empty value and a missing key before sending', async () => {
      expectRefused(
        await call('captcha', `POST /captcha/${kind}/verify`, { json: { key: 'k', value: '' } }),
        'body.value',
      );
      expectRefused(await call('captcha', `GET /captcha/${kind}`), 'query.key');
      expectRefused(
        await call('captcha', `GET /captcha/${kind}/key`, { query: 'code=1' }),
        'query.code',
      );
    });

    it('answers CT001 for a key that was never issued or is spent', async () => {
      const verify = await call('captcha', `POST /captcha/${kind}/verify`, {
        json: { key: 'neverIssued0000', value: 'x' },
      });
      expectEnvelope(verify, 400, 'CT001', 'Invalid key.');
    });

    it('answers a quota refusal of the key issue as the envelope', async () => {
      addFault({ kind: 'status', status: 429, errorCode: '400', match: { pathPrefix: keyPath } });
      expectEnvelope(
        await call('captcha', `GET /captcha/${kind}/key`),
        429,
        '400',
        'Quota Exceeded',
      );
    });
  });

  describe('short URLs', () => {
    const url = 'http://d2.naver.com/helloworld/4874130';

    it('shortens with GET and with POST (a form upstream), stable for the same URL', async () => {
      const get = await call('utility', 'GET /shorturl', {
        query: `url=${encodeURIComponent(url)}`,
      });
      const post = await call('utility', 'POST /shorturl', { json: { url } });
      expect(get.statusCode).toBe(200);
      expect(post.statusCode).toBe(200);
      expect(jsonBody(get)).toMatchObject({ code: '200', result: { orgUrl: url } });
      expect(jsonBody(post)).toEqual(jsonBody(get));
      expect(upstream()[1]!.method).toBe('POST');
      expect(upstream()[1]!.body).toBe(`url=${encodeURIComponent(url)}`);
    });

    it('answers XML when the caller accepts text/xml', async () => {
      const result = await call('utility', 'GET /shorturl', {
        query: `url=${encodeURIComponent(url)}`,
        headers: { accept: 'text/xml' },
      });
      expect(result.statusCode).toBe(200);
      expect(upstream()[0]!.headers.accept).toBe('text/xml');
      expect(result.body).toMatch(/^<\?xml/);
    });

    it('refuses a relative URL before sending', async () => {
      expectRefused(await call('utility', 'GET /shorturl', { query: 'url=%2Fa%2Fb' }), 'query.url');
      expectRefused(await call('utility', 'POST /shorturl', { json: { url: 'x' } }), 'body.url');
    });

    it('answers an endpoint failure as the envelope, in XML when asked', async () => {
      addFault({ kind: 'status', status: 500, errorCode: '900', match: { pathPrefix: '/util/' } });
      const result = await call('utility', 'GET /shorturl', {
        query: `url=${encodeURIComponent(url)}`,
        headers: { accept: 'text/xml' },
      });
      expect(result.statusCode).toBe(500);
      expect(result.body).toBe(
        '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>900</errorCode>' +
          '<message>Unexpected Error</message></error></result>',
      );
    });
  });

  describe('POST /trends', () => {
    it('sends the search as JSON and answers the trend', async () => {
      const result = await call('utility', 'POST /trends', { json: TRENDS });
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ timeUnit: 'month', results: [{ title: '한글' }] });
      expect(JSON.parse(upstream()[0]!.body ?? '')).toEqual(TRENDS);
    });

    it('refuses a start before 2016-01-01 before sending', async () => {
      expectRefused(
        await call('utility', 'POST /trends', { json: { ...TRENDS, startDate: '2015-12-31' } }),
        'body.startDate',
      );
    });

    it("answers the API's own error code in the envelope", async () => {
      addFault({
        kind: 'status',
        status: 400,
        origin: 'ENDPOINT',
        match: { pathPrefix: '/datalab/' },
        body: JSON.stringify({ errorMessage: 'Invalid parameter (timeUnit)', errorCode: '400' }),
      });
      expectEnvelope(
        await call('utility', 'POST /trends', { json: TRENDS }),
        400,
        '400',
        'Invalid parameter (timeUnit)',
      );
    });
  });

  describe('every route', () => {
    it('refuses a caller without a token, sending nothing', async () => {
      const result = await call('maps', 'GET /maps/geocode', {
        query: 'query=a',
        headers: { authorization: undefined },
      });
      expectEnvelope(result, 401, '200', 'Authentication Failed');
      expect(upstream()).toHaveLength(0);
    });

    it('answers 404 for a route the function does not serve', async () => {
      expectEnvelope(await call('maps', 'GET /translate'), 404, '300');
    });
  });
});

describe('catalogue functions with other configurations', () => {
  const emulator = emulatorForSuite();

  beforeEach(() => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ['a wrong client secret', { clientSecret: 'wrong-secret' }],
    ['an unknown client id', { clientId: 'no-such-client' }],
  ])(
    "answers the gateway's refusal of %s as the operator's 500/900, in XML too, counted for the alarm",
    async (_case, change) => {
      const secret = await demoSecret();
      const file = await secretFile({ ...secret, openapi: { ...secret.openapi!, ...change } });
      const { utility } = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
        utility: CATALOGUE_FUNCTIONS.utility,
      });
      const result = await utility(eventFor('POST /trends', { json: TRENDS }), lambdaContext());
      expect(result.statusCode).toBe(500);
      expect(jsonBody(result)).toEqual({
        error: {
          errorCode: '900',
          message: 'Unexpected Error',
          details:
            "The platform refused this service's own credentials (the catalogue's client id and secret (openapi)). " +
            'Its operator must correct the secret; retrying will not help until then.',
        },
      });
      const xml = await utility(
        eventFor('POST /trends', { json: TRENDS, headers: { accept: 'text/xml' } }),
        lambdaContext(),
      );
      expect(xml.statusCode).toBe(500);
      expect(xml.body).toContain(
        '<errorCode>900</errorCode><message>Unexpected Error</message><details>The platform refused this service&apos;s own credentials',
      );
      const counted = vi
        .mocked(console.log)
        .mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
        .filter((line) => 'ConfigurationErrors' in line);
      expect(counted).toHaveLength(2);
      expect(counted[0]).toMatchObject({
        Cause: 'credentials',
        ConfigurationErrors: 1,
        upstreamStatus: 401,
        upstreamErrorCode: '200',
      });
    },
  );

  it('sends a service to its own host with OPENAPI_SERVICE_URLS, the rest to OPENAPI_BASE_URL', async () => {
    const { language } = await loadHandlers(
      emulatorEnv(emulator, {
        // Nothing listens on port 9 (discard) of loopback here: the base URL is unreachable.
        OPENAPI_BASE_URL: 'http://127.0.0.1:9',
        OPENAPI_SERVICE_URLS: JSON.stringify({ nmt: emulator.url }),
      }),
      { language: CATALOGUE_FUNCTIONS.language },
    );
    const nmt = await language(
      eventFor('POST /translate', { json: { source: 'ko', target: 'en', text: '안녕하세요' } }),
      lambdaContext(),
    );
    expect(nmt.statusCode).toBe(200);
    const smt = await language(
      eventFor('POST /translate', {
        json: { engine: 'smt', source: 'ko', target: 'en', text: '안녕하세요' },
      }),
      lambdaContext(),
    );
    expect(smt.statusCode).toBe(503);
    expect((jsonBody(smt) as ErrorBody).error.errorCode).toBe('500');
    expect(emulator.requests.map((r) => r.url)).toEqual(['/nmt/v1/translation']);
  });
});
