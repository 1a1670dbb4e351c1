import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, jsonOf } from './helpers.ts';

const GREEN_FACTORY = '127.1054328,37.3595963';
const BUSAN_CITY_HALL = '129.0750222,35.1798159';

describe('reverse geocoding', () => {
  const emulator = emulatorForSuite({ now: () => Date.parse('2026-03-01T05:45:34Z') });
  const get = async (target: string) => {
    const response = await catalogueFetch(emulator, 'GET', target);
    return { response, body: (await jsonOf(response)) as Record<string, unknown> };
  };

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
});
