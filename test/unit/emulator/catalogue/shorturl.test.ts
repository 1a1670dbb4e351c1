import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, FORM, form, JSON_TYPE, jsonOf } from './helpers.ts';

const LONG_URL = 'http://d2.naver.com/helloworld/4874130';

describe('short URL, /util/v1/shorturl', () => {
  const emulator = emulatorForSuite();

  it('answers the same stable hash by GET query, POST form and POST JSON', async () => {
    const byQuery = await catalogueFetch(
      emulator,
      'GET',
      `/util/v1/shorturl?url=${encodeURIComponent(LONG_URL)}`,
    );
    const byForm = await catalogueFetch(emulator, 'POST', '/util/v1/shorturl', {
      body: form({ url: LONG_URL }),
      contentType: FORM,
    });
    const byJson = await catalogueFetch(emulator, 'POST', '/util/v1/shorturl', {
      body: JSON.stringify({ url: LONG_URL }),
      contentType: JSON_TYPE,
    });
    const bodies = await Promise.all([byQuery, byForm, byJson].map(jsonOf));

    const first = bodies[0] as { result: { hash: string } };
    expect(first).toEqual({
      message: 'ok',
      result: {
        hash: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
        url: `https://me2.do/${first.result.hash}`,
        orgUrl: LONG_URL,
      },
      code: '200',
    });
    expect(bodies[1]).toEqual(first);
    expect(bodies[2]).toEqual(first);
  });

  it('gives different URLs different hashes', async () => {
    const hashOf = async (url: string) =>
      (
        (await jsonOf(
          await catalogueFetch(emulator, 'GET', `/util/v1/shorturl?url=${encodeURIComponent(url)}`),
        )) as {
          result: { hash: string };
        }
      ).result.hash;

    expect(await hashOf('https://example.com/a')).not.toBe(await hashOf('https://example.com/b'));
  });

  it('answers XML when Accept asks for it', async () => {
    const response = await catalogueFetch(
      emulator,
      'GET',
      `/util/v1/shorturl?url=${encodeURIComponent(LONG_URL)}`,
      {
        accept: 'application/xml',
      },
    );
    const xml = new XMLParser({ parseTagValue: false }).parse(await response.text());

    expect(response.headers.get('content-type')).toContain('xml');
    expect(xml.result).toMatchObject({ message: 'ok', code: '200', result: { orgUrl: LONG_URL } });
  });

  it.each([
    ['no url', ''],
    ['a relative url', '?url=%2Fpath'],
    ['an ftp url', '?url=ftp%3A%2F%2Fexample.com%2F'],
    ['not a url', '?url=hello'],
  ])('refuses %s with 400/100', async (_, query) => {
    const response = await catalogueFetch(emulator, 'GET', `/util/v1/shorturl${query}`);

    expect(response.status).toBe(400);
    expect(await jsonOf(response)).toMatchObject({ error: { errorCode: '100' } });
  });
});
