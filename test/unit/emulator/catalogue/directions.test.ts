import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, jsonOf } from './helpers.ts';

const GREEN_FACTORY = '127.1054328,37.3595963';
const BUSAN_CITY_HALL = '129.0750222,35.1798159';

describe('directions', () => {
  const emulator = emulatorForSuite({ now: () => Date.parse('2026-03-01T05:45:34Z') });
  const get = async (target: string) => {
    const response = await catalogueFetch(emulator, 'GET', target);
    return { response, body: (await jsonOf(response)) as Record<string, unknown> };
  };

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
