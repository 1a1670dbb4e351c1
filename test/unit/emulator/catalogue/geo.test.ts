import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.js';
import { catalogueFetch, jsonOf } from './helpers.js';

const GREEN_FACTORY = '127.1054328,37.3595963';
const BUSAN_CITY_HALL = '129.0750222,35.1798159';
const q = encodeURIComponent;

describe('geocoding, reverse geocoding, places and directions', () => {
  const emulator = emulatorForSuite({ now: () => Date.parse('2026-03-01T05:45:34Z') });
  const get = async (target: string) => {
    const response = await catalogueFetch(emulator, 'GET', target);
    return { response, body: (await jsonOf(response)) as Record<string, unknown> };
  };

  describe('/map-geocode/v2/geocode', () => {
    it('finds an address with coordinates as strings and the full element list', async () => {
      const { response, body } = await get(`/map-geocode/v2/geocode?query=${q('분당구 불정로 6')}`);

      expect(response.status).toBe(200);
      expect(body).toMatchObject({
        status: 'OK',
        meta: { totalCount: 1, page: 1, count: 1 },
        errorMessage: '',
      });
      const [address] = body['addresses'] as Record<string, unknown>[];
      expect(address).toMatchObject({
        roadAddress: '경기도 성남시 분당구 불정로 6 NAVER그린팩토리',
        jibunAddress: '경기도 성남시 분당구 정자동 178-1 NAVER그린팩토리',
        x: '127.1054328',
        y: '37.3595963',
        distance: 0,
      });
      expect(address?.['addressElements']).toContainEqual({
        types: ['POSTAL_CODE'],
        longName: '13561',
        shortName: '13561',
        code: '',
      });
    });

    it('pages, filters by HCODE and measures the distance from coordinate', async () => {
      const seoul = await get(`/map-geocode/v2/geocode?query=${q('서울특별시')}&count=1&page=2`);
      const filtered = await get(`/map-geocode/v2/geocode?query=6&filter=${q('HCODE@4113554500')}`);
      const far = await get(
        `/map-geocode/v2/geocode?query=${q('불정로')}&coordinate=${BUSAN_CITY_HALL}`,
      );

      expect(seoul.body['meta']).toEqual({ totalCount: 2, page: 2, count: 1 });
      expect(filtered.body['meta']).toMatchObject({ totalCount: 1 });
      const [address] = far.body['addresses'] as { distance: number }[];
      expect(address?.distance).toBeGreaterThan(250_000);
    });

    it('answers OK with no addresses for an unknown address or a POI name', async () => {
      const { body } = await get(`/map-geocode/v2/geocode?query=${q('강남역')}`);

      expect(body).toMatchObject({
        status: 'OK',
        meta: { totalCount: 0, count: 0 },
        addresses: [],
      });
    });

    it.each([
      ['', 'query'],
      ['?query=', 'query'],
      [`?query=${q('불정로')}&count=101`, 'count'],
      [`?query=${q('불정로')}&count=0`, 'count'],
      [`?query=${q('불정로')}&page=0`, 'page'],
      [`?query=${q('불정로')}&coordinate=abc`, 'coordinate'],
      [`?query=${q('불정로')}&filter=XCODE@1`, 'filter'],
    ])('reports INVALID_REQUEST inside a 200 for %s', async (query, parameter) => {
      const { response, body } = await get(`/map-geocode/v2/geocode${query}`);

      expect(response.status).toBe(200);
      expect(body).toEqual({ status: 'INVALID_REQUEST', errorMessage: `${parameter} is INVALID` });
    });
  });

  describe('/map-reversegeocode/v2/gc', () => {
    it('answers the legal and administrative codes by default, with area0..area4', async () => {
      const { body } = await get(`/map-reversegeocode/v2/gc?coords=${BUSAN_CITY_HALL}&output=json`);

      expect(body['status']).toEqual({ code: 0, name: 'ok', message: 'done' });
      const results = body['results'] as Record<string, unknown>[];
      expect(results.map((result) => result['name'])).toEqual(['legalcode', 'admcode']);
      expect(results[0]).toMatchObject({
        code: { id: '2647010200', type: 'L' },
        region: {
          area0: { name: 'kr', coords: { center: { crs: '', x: 0, y: 0 } } },
          area1: { name: '부산광역시', coords: { center: { crs: 'EPSG:4326', x: 129.0750222 } } },
          area2: { name: '연제구' },
          area3: { name: '연산동' },
          area4: { name: '' },
        },
      });
    });

    it('adds land to addr and roadaddr results', async () => {
      const { body } = await get(
        `/map-reversegeocode/v2/gc?coords=${GREEN_FACTORY}&orders=addr,roadaddr`,
      );
      const [addr, road] = body['results'] as Record<string, Record<string, unknown>>[];

      expect(addr?.['land']).toMatchObject({ type: '1', number1: '178', number2: '1' });
      expect(road?.['land']).toMatchObject({
        number1: '6',
        name: '불정로',
        addition0: { type: 'building', value: 'NAVER그린팩토리' },
        addition1: { type: 'zipcode', value: '13561' },
      });
    });

    it('answers XML with output=xml', async () => {
      const response = await catalogueFetch(
        emulator,
        'GET',
        `/map-reversegeocode/v2/gc?coords=${GREEN_FACTORY}&output=xml&orders=legalcode`,
      );
      const xml = new XMLParser({ parseTagValue: false }).parse(await response.text());

      expect(response.headers.get('content-type')).toBe('application/xml;charset=UTF-8');
      expect(xml.response.status).toEqual({ code: '0', name: 'ok', message: 'done' });
      expect(xml.response.results.region.area1.name).toBe('경기도');
    });

    it('reports "no results" (code 3) inside a 200 far from any address', async () => {
      const { response, body } = await get('/map-reversegeocode/v2/gc?coords=0,0');

      expect(response.status).toBe(200);
      expect(body).toMatchObject({ status: { code: 3, name: 'no results' }, results: [] });
    });

    it.each([
      ['no coords', ''],
      ['malformed coords', '?coords=abc'],
      ['latitude out of range', '?coords=127,91'],
      ['an unknown order', `?coords=${GREEN_FACTORY}&orders=legalcode,postcode`],
      ['an unknown output', `?coords=${GREEN_FACTORY}&output=yaml`],
    ])('refuses %s with HTTP 400 and status code 100', async (_, query) => {
      const { response, body } = await get(`/map-reversegeocode/v2/gc${query}`);

      expect(response.status).toBe(400);
      expect(body).toMatchObject({ status: { code: 100, name: 'invalid request' } });
    });
  });

  describe('/map-place/v1/search', () => {
    it('finds places by name, nearest first', async () => {
      const { body } = await get(
        `/map-place/v1/search?query=${q('부산')}&coordinate=${BUSAN_CITY_HALL}`,
      );
      const places = body['places'] as Record<string, unknown>[];

      expect(body).toMatchObject({ status: 'OK', meta: { totalCount: 2, count: 2 } });
      expect(places.map((place) => place['name'])).toEqual(['부산광역시청', '부산역']);
      expect(places[0]).toMatchObject({ phone_number: '051-120', x: '129.0750222', distance: 0 });
      expect(Object.keys(places[0] ?? {})).toEqual([
        'name',
        'road_address',
        'jibun_address',
        'phone_number',
        'x',
        'y',
        'distance',
        'sessionId',
      ]);
    });

    it('reports a missing query as INVALID_REQUEST', async () => {
      expect((await get('/map-place/v1/search?coordinate=127,37')).body).toMatchObject({
        status: 'INVALID_REQUEST',
      });
    });
  });

  describe('/map-direction/v1/driving', () => {
    it('answers a route under the requested option names, in ms and metres', async () => {
      const { body } = await get(
        `/map-direction/v1/driving?start=${GREEN_FACTORY}&goal=${BUSAN_CITY_HALL}&option=trafast:traavoidtoll`,
      );

      expect(body).toMatchObject({
        code: 0,
        message: '길찾기를 성공하였습니다.',
        currentDateTime: '2026-03-01T14:45:34',
      });
      const route = body['route'] as Record<
        string,
        { summary: Record<string, unknown>; path: unknown[] }[]
      >;
      expect(Object.keys(route)).toEqual(['trafast', 'traavoidtoll']);
      const fast = route['trafast']?.[0];
      const noToll = route['traavoidtoll']?.[0];
      expect(fast?.summary).toMatchObject({
        start: { location: [127.1054328, 37.3595963] },
        goal: { location: [129.0750222, 35.1798159] },
        departureTime: '2026-03-01T14:45:34',
      });
      expect(fast?.summary['distance']).toBeGreaterThan(300_000);
      expect(noToll?.summary['tollFare']).toBe(0);
      expect(noToll?.summary['duration']).toBeGreaterThan(fast?.summary['duration'] as number);
      expect(fast?.path[0]).toEqual([127.1054328, 37.3595963]);
    });

    it('defaults to traoptimal and lists waypoints in the summary', async () => {
      const { body } = await get(
        `/map-direction/v1/driving?start=${GREEN_FACTORY}&goal=${BUSAN_CITY_HALL}&waypoints=127.3845475,36.3504119`,
      );
      const route = body['route'] as Record<string, { summary: { waypoints: unknown[] } }[]>;

      expect(Object.keys(route)).toEqual(['traoptimal']);
      expect(route['traoptimal']?.[0]?.summary.waypoints).toHaveLength(1);
    });

    it.each([
      ['the same start and goal', `start=${GREEN_FACTORY}&goal=${GREEN_FACTORY}`, 1],
      ['a goal far from any road', `start=${GREEN_FACTORY}&goal=139.7,35.6`, 2],
      [
        'a waypoint far from any road',
        `start=${GREEN_FACTORY}&goal=${BUSAN_CITY_HALL}&waypoints=0,0`,
        4,
      ],
    ])('reports %s as code %i inside a 200', async (_, query, code) => {
      const { response, body } = await get(`/map-direction/v1/driving?${query}`);

      expect(response.status).toBe(200);
      expect(body).toEqual({ code, message: expect.any(String) });
    });

    it.each([
      ['no start', `goal=${GREEN_FACTORY}`],
      ['a malformed goal', `start=${GREEN_FACTORY}&goal=here`],
      ['an unknown option', `start=${GREEN_FACTORY}&goal=${BUSAN_CITY_HALL}&option=fastest`],
      [
        'six waypoints',
        `start=${GREEN_FACTORY}&goal=${BUSAN_CITY_HALL}&waypoints=${Array(6).fill('127,37').join('|')}`,
      ],
    ])('refuses %s with 400/100', async (_, query) => {
      const { response, body } = await get(`/map-direction/v1/driving?${query}`);

      expect(response.status).toBe(400);
      expect(body).toMatchObject({ error: { errorCode: '100', message: 'Bad Request Exception' } });
    });
  });
});
