import { describe, expect, it } from 'vitest';
import type { ScanJobListResult } from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { API_CALL_FAIL, json, REQUEST_SUCCESS, signedFetch } from '../helpers.ts';

const RESERVED_ON_DEMO_HOST = ['2810023', '2810021', '2810019', '2810017'];

describe('scan job API', () => {
  const emulator = emulatorForSuite();

  const list = async (query: string) => {
    const response = await signedFetch(emulator, 'GET', `/api/v1/jobs${query}`);
    return { response, body: (await json(response)) as ScanJobListResult };
  };
  const search = async (body: unknown, contentType = 'application/json') => {
    const response = await signedFetch(emulator, 'POST', '/api/v1/jobs/search', {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      contentType,
    });
    return { response, body: (await json(response)) as ScanJobListResult };
  };
  const patch = (instanceNo: string, operation: 'cancel' | 'stop') =>
    signedFetch(emulator, 'PATCH', `/api/v1/jobs/${instanceNo}/${operation}`);
  const report = (instanceNo: string) =>
    signedFetch(emulator, 'GET', `/api/v1/jobs/${instanceNo}/report`);

  describe('GET /api/v1/jobs', () => {
    it('lists the first 20 jobs, newest first, with page counts as strings', async () => {
      const { response, body } = await list('');

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
      expect(body.resources).toMatchObject({
        current_start_page: '1',
        current_end_page: '2',
        total_cnt: 25,
        total_page_cnt: '2',
      });
      expect(body.resources.record_data).toHaveLength(20);
      expect(body.resources.record_data[0]?.instanceNo).toBe('2810025');
      expect(body.resources.record_data[19]?.instanceNo).toBe('2810006');
    });

    it('returns records with every field of a scan job record, in their types', async () => {
      const { body } = await list('?page=1&limit=25');
      const byId = new Map(body.resources.record_data.map((record) => [record.instanceNo, record]));

      expect(byId.get('2810017')).toEqual({
        instanceNo: '2810017',
        memo: 'nightly scan',
        start_url: 'https://demo.example.com/',
        start_date: '2026-11-28 02:00:00',
        end_date: null,
        status: 'Reservation',
        result_button: 'cancel',
        crawl_cnt: null,
        scan_cnt: null,
        rescan_button: null,
        result_desc: null,
        slave_data: null,
        progress: 0,
      });
      expect(byId.get('2810012')).toMatchObject({
        status: 'Progress',
        result_button: 'terminate',
        end_date: null,
      });
      expect(byId.get('2810011')).toMatchObject({
        status: 'Complete',
        result_button: 'report',
        progress: 100,
      });
      expect(byId.get('2810007')).toMatchObject({ status: 'Cancel', result_button: null });
      expect(byId.get('2810004')).toMatchObject({ status: 'Stop', result_button: null });
    });

    it('pages with page and limit, and reports the block of ten page links', async () => {
      const { body } = await list('?page=12&limit=2');

      expect(body.resources).toMatchObject({
        current_start_page: '11',
        current_end_page: '13',
        total_cnt: 25,
        total_page_cnt: '13',
      });
      expect(body.resources.record_data.map((record) => record.instanceNo)).toEqual([
        '2810003',
        '2810002',
      ]);
    });

    it('answers a page past the end with no records', async () => {
      const { response, body } = await list('?page=9&limit=10');

      expect(response.status).toBe(200);
      expect(body.resources.record_data).toEqual([]);
      expect(body.resources.total_cnt).toBe(25);
    });

    it.each([
      '?page=0',
      '?limit=0',
      '?page=-1',
      '?page=1.5',
      '?limit=ten',
      '?page=',
      '?page=1&page=2',
    ])('refuses %s with the backend 901 error', async (query) => {
      const response = await signedFetch(emulator, 'GET', `/api/v1/jobs${query}`);

      expect(response.status).toBe(400);
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
      expect(await json(response)).toEqual(API_CALL_FAIL);
    });
  });

  describe('POST /api/v1/jobs/search', () => {
    it('finds jobs whose URL contains the keyword, across pages', async () => {
      const first = await search({
        searchType: 'url',
        searchKeyword: 'demo.example.com',
        statusCode: null,
        limit: 10,
        page: 1,
      });
      const second = await search({
        searchType: 'url',
        searchKeyword: 'demo.example.com',
        statusCode: null,
        limit: 10,
        page: 2,
      });

      expect(first.response.status).toBe(200);
      expect(first.body.resources).toMatchObject({
        total_cnt: 12,
        total_page_cnt: '2',
        current_end_page: '2',
      });
      const found = [...first.body.resources.record_data, ...second.body.resources.record_data];
      expect(found).toHaveLength(12);
      expect(found.every((record) => record.start_url.includes('demo.example.com'))).toBe(true);
    });

    it('filters by status code', async () => {
      const { body } = await search({
        searchType: 'url',
        searchKeyword: 'demo.example.com',
        statusCode: '2',
        limit: 10,
        page: 1,
      });

      expect(body.resources.record_data.map((record) => record.instanceNo)).toEqual(
        RESERVED_ON_DEMO_HOST,
      );
    });

    it.each([
      [2, 'Reservation', 9],
      [3, 'Progress', 5],
      [4, 'Complete', 9],
      ['91', 'Cancel', 1],
      ['93', 'Stop', 1],
    ])('maps status code %s to %s', async (statusCode, status, count) => {
      const { body } = await search({
        searchType: '',
        searchKeyword: '',
        statusCode,
        limit: 50,
        page: 1,
      });

      expect(body.resources.total_cnt).toBe(count);
      expect(body.resources.record_data.every((record) => record.status === status)).toBe(true);
    });

    it('searches memos, case-insensitively', async () => {
      const { body } = await search({
        searchType: 'memo',
        searchKeyword: 'NIGHTLY',
        statusCode: null,
        limit: 50,
        page: 1,
      });

      expect(body.resources.total_cnt).toBe(9);
      expect(body.resources.record_data.every((record) => record.memo === 'nightly scan')).toBe(
        true,
      );
    });

    it.each(['login', 'check'])(
      'searches memo or URL when searchType is empty (%s)',
      async (keyword) => {
        const idsFor = async (searchType: string) => {
          const { body } = await search({
            searchType,
            searchKeyword: keyword,
            statusCode: null,
            limit: 50,
            page: 1,
          });
          return body.resources.record_data.map((record) => record.instanceNo);
        };

        const either = await idsFor('');
        const union = new Set([...(await idsFor('memo')), ...(await idsFor('url'))]);

        expect(either.length).toBeGreaterThan(0);
        expect(new Set(either)).toEqual(union);
      },
    );

    it('matches non-ASCII keywords', async () => {
      const { body } = await search({
        searchType: 'memo',
        searchKeyword: '주간',
        statusCode: null,
        limit: 10,
        page: 1,
      });

      expect(body.resources.total_cnt).toBe(3);
    });

    it('answers an empty result with zero pages', async () => {
      const { body } = await search({
        searchType: 'url',
        searchKeyword: 'nowhere.invalid',
        statusCode: null,
        limit: 10,
        page: 1,
      });

      expect(body.resources).toEqual({
        current_start_page: '1',
        current_end_page: '1',
        record_data: [],
        total_cnt: 0,
        total_page_cnt: '0',
      });
    });

    it('accepts a Content-Type with a charset', async () => {
      const { response } = await search(
        { searchType: '', searchKeyword: '' },
        'application/json; charset=UTF-8',
      );

      expect(response.status).toBe(200);
    });

    it.each([
      ['a form body', 'searchType=url', 'application/x-www-form-urlencoded'],
      ['no Content-Type', '{}', ''],
      ['malformed JSON', '{"searchType":', 'application/json'],
      ['a JSON array', '[]', 'application/json'],
      [
        'an unknown searchType',
        JSON.stringify({ searchType: 'title', searchKeyword: 'x' }),
        'application/json',
      ],
      [
        'a numeric keyword',
        JSON.stringify({ searchType: 'url', searchKeyword: 5 }),
        'application/json',
      ],
      ['an unknown status code', JSON.stringify({ statusCode: '7' }), 'application/json'],
      ['limit 0', JSON.stringify({ limit: 0 }), 'application/json'],
      ['page as a string', JSON.stringify({ page: '1' }), 'application/json'],
    ])('refuses %s with the backend 901 error', async (_, body, contentType) => {
      const { response, body: answer } = await search(body, contentType);

      expect(response.status).toBe(400);
      expect(answer).toEqual(API_CALL_FAIL);
    });
  });

  describe('PATCH /api/v1/jobs/{id}/cancel', () => {
    it('cancels a reservation', async () => {
      const response = await patch('2810017', 'cancel');

      expect(response.status).toBe(200);
      expect(await json(response)).toEqual(REQUEST_SUCCESS);
      expect(emulator.scanJobs.get('2810017')).toMatchObject({
        status: 'Cancel',
        result_button: null,
      });
    });

    it.each([
      ['running', '2810012'],
      ['completed', '2810011'],
      ['already cancelled', '2810007'],
      ['stopped', '2810004'],
      ['unknown', '9999999'],
      ['not a number', 'abc'],
    ])('refuses a %s job with 400/901', async (_, instanceNo) => {
      const before = emulator.scanJobs.get(instanceNo);
      const response = await patch(instanceNo, 'cancel');

      expect(response.status).toBe(400);
      expect(await json(response)).toEqual(API_CALL_FAIL);
      expect(emulator.scanJobs.get(instanceNo)).toEqual(before);
    });

    it('refuses to cancel the same reservation twice', async () => {
      await patch('2810018', 'cancel');
      const again = await patch('2810018', 'cancel');

      expect(again.status).toBe(400);
    });
  });

  describe('PATCH /api/v1/jobs/{id}/stop', () => {
    it('stops a running job', async () => {
      const response = await patch('2810013', 'stop');

      expect(response.status).toBe(200);
      expect(await json(response)).toEqual(REQUEST_SUCCESS);
      const job = emulator.scanJobs.get('2810013');
      expect(job).toMatchObject({ status: 'Stop', result_button: null, progress: 70 });
      expect(job?.end_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it.each([
      ['reserved', '2810017'],
      ['completed', '2810011'],
      ['cancelled', '2810007'],
      ['stopped', '2810004'],
      ['unknown', '9999999'],
    ])('refuses a %s job with 400/901', async (_, instanceNo) => {
      const response = await patch(instanceNo, 'stop');

      expect(response.status).toBe(400);
      expect(await json(response)).toEqual(API_CALL_FAIL);
    });
  });

  describe('GET /api/v1/jobs/{id}/report', () => {
    it('reports a completed job with the mixed-case fields, in UTF-8', async () => {
      const response = await report('2810011');
      const bytes = Buffer.from(await response.arrayBuffer());
      const body = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
      expect(body).toMatchObject({
        report_date: '2026-11-10 03:14:09',
        Target_Info: 'https://demo.example.com/api',
        Crawl_Time: expect.stringMatching(/^2026\/11\/10 02:00:00~2026\/11\/10 \d{2}:\d{2}:\d{2}$/),
        Scan_Time: expect.stringMatching(/~2026\/11\/10 03:14:09$/),
        Memo: 'nightly scan',
        Scanned_Domain_List: ['demo.example.com'],
        Not_Scanned_Domain_List: [],
      });
      expect(Object.keys(body)).toEqual([
        'report_date',
        'Target_Info',
        'Crawl_Time',
        'Scan_Time',
        'Excluded_Url',
        'Login_Info',
        'Vulnerability_Category',
        'User_Agent',
        'Memo',
        'Scanned_Domain_List',
        'Not_Scanned_Domain_List',
        'Classify_byRisk_Level',
      ]);
      const risk = body['Classify_byRisk_Level'] as Record<string, number>;
      expect(risk['Total']).toBe((risk['High'] ?? 0) + (risk['Medium'] ?? 0) + (risk['Low'] ?? 0));
      expect(bytes.toString('utf8')).toMatch(/[\uac00-\ud7a3]/);
    });

    it('answers the same bytes every time', async () => {
      const first = Buffer.from(await (await report('2810005')).arrayBuffer());
      const second = Buffer.from(await (await report('2810005')).arrayBuffer());

      expect(second.equals(first)).toBe(true);
    });

    it.each([
      ['reserved', '2810017'],
      ['running', '2810012'],
      ['cancelled', '2810007'],
      ['stopped', '2810004'],
      ['unknown', '9999999'],
    ])('refuses a %s job with 400/901', async (_, instanceNo) => {
      const response = await report(instanceNo);

      expect(response.status).toBe(400);
      expect(await json(response)).toEqual(API_CALL_FAIL);
    });

    it('reports a job once it has been advanced to Complete', async () => {
      emulator.scanJobs.advance('2810016');

      const response = await report('2810016');

      expect(response.status).toBe(200);
    });
  });
});
