import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, jsonOf } from './helpers.ts';

const BUSAN_CITY_HALL = '129.0750222,35.1798159';
const q = encodeURIComponent;

describe('geocoding and place search', () => {
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
});
