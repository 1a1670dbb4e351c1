import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, FORM, form, JSON_TYPE, jsonOf } from './helpers.ts';

describe('search trend, /datalab/v1/search', () => {
  const emulator = emulatorForSuite({ now: () => Date.parse('2026-03-04T10:00:00Z') });
  const search = (body: unknown, contentType = JSON_TYPE) =>
    catalogueFetch(emulator, 'POST', '/datalab/v1/search', {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      contentType,
    });
  const valid = {
    startDate: '2017-01-01',
    endDate: '2017-04-30',
    timeUnit: 'month',
    keywordGroups: [
      { groupName: '한글', keywords: ['한글', 'korean'] },
      { groupName: '영어', keywords: ['영어', 'english'] },
    ],
  };
  type Trend = {
    results: { title: string; keywords: string[]; data: { period: string; ratio: number }[] }[];
  };

  it('answers one series per group, monthly periods, the largest ratio of the call 100', async () => {
    const response = await search(valid);
    const body = (await jsonOf(response)) as Trend & Record<string, unknown>;
    const ratios = body.results.flatMap((result) => result.data.map((point) => point.ratio));

    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      startDate: '2017-01-01',
      endDate: '2017-04-30',
      timeUnit: 'month',
    });
    expect(body.results.map((result) => result.title)).toEqual(['한글', '영어']);
    expect(body.results[0]?.data.map((point) => point.period)).toEqual([
      '2017-01-01',
      '2017-02-01',
      '2017-03-01',
      '2017-04-01',
    ]);
    expect(Math.max(...ratios)).toBe(100);
    expect(ratios.every((ratio) => ratio > 0 && ratio <= 100)).toBe(true);
    expect(await jsonOf(await search(valid))).toEqual(body);
  });

  it('answers weekly periods from Mondays, the first clipped to startDate, none after today', async () => {
    const body = (await jsonOf(
      await search({ ...valid, timeUnit: 'week', startDate: '2026-02-18', endDate: '2026-03-31' }),
    )) as Trend;

    expect(body.results[0]?.data.map((point) => point.period)).toEqual([
      '2026-02-18',
      '2026-02-23',
      '2026-03-02',
    ]);
  });

  it('answers daily periods, and segments change the numbers', async () => {
    const all = (await jsonOf(
      await search({ ...valid, timeUnit: 'date', endDate: '2017-01-07' }),
    )) as Trend;
    const mobile = (await jsonOf(
      await search({
        ...valid,
        timeUnit: 'date',
        endDate: '2017-01-07',
        device: 'mo',
        gender: 'f',
        ages: ['3', '4'],
      }),
    )) as Trend;

    expect(all.results[0]?.data).toHaveLength(7);
    expect(mobile.results).not.toEqual(all.results);
  });

  it.each([
    ['startDate before 2016', { ...valid, startDate: '2015-12-31' }],
    ['an impossible date', { ...valid, endDate: '2017-02-30' }],
    ['endDate before startDate', { ...valid, endDate: '2016-12-31' }],
    ['an unknown timeUnit', { ...valid, timeUnit: 'year' }],
    ['no keywordGroups', { ...valid, keywordGroups: [] }],
    [
      'six keywordGroups',
      { ...valid, keywordGroups: Array(6).fill({ groupName: 'a', keywords: ['a'] }) },
    ],
    [
      '21 keywords',
      { ...valid, keywordGroups: [{ groupName: 'a', keywords: Array(21).fill('a') }] },
    ],
    ['a group without a name', { ...valid, keywordGroups: [{ keywords: ['a'] }] }],
    ['an unknown device', { ...valid, device: 'tv' }],
    ['an unknown gender', { ...valid, gender: 'x' }],
    ['an unknown age band', { ...valid, ages: ['12'] }],
    ['malformed JSON', '{"startDate":'],
  ])('refuses %s with 400/100', async (_, body) => {
    const response = await search(body);

    expect(response.status).toBe(400);
    expect(await jsonOf(response)).toMatchObject({
      error: { errorCode: '100', message: 'Bad Request Exception' },
    });
  });

  it('refuses a form body', async () => {
    expect((await search(form({ startDate: '2017-01-01' }), FORM)).status).toBe(400);
  });
});
