/** What each catalogue route accepts and refuses before anything is sent (platform-facts §1). */
import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from '../../../../lib/catalogue/entry.js';
import { catalogueEntry } from '../../../../lib/catalogue/table.js';

type Part = 'body' | 'query' | 'path';

function schemaOf(routeKey: string, part: Part) {
  const api = catalogueEntry(routeKey) as CatalogueEntry;
  const schema = { body: api.body, query: api.query, path: api.pathParams }[part];
  if (!schema) throw new Error(`${routeKey} has no ${part} schema`);
  return schema;
}

const text = (n: number, c = 'a') => c.repeat(n);
const trends = (changes: Record<string, unknown> = {}) => ({
  startDate: '2016-01-01',
  endDate: '2016-12-31',
  timeUnit: 'month',
  keywordGroups: [{ groupName: 'g', keywords: ['k'] }],
  ...changes,
});

const accepted: [string, Part, unknown][] = [
  ['POST /translate', 'body', { source: 'ko', target: 'en', text: 'a' }],
  [
    'POST /translate',
    'body',
    { source: 'auto', target: 'zh-TW', text: text(5000), honorific: false },
  ],
  ['POST /translate', 'body', { engine: 'smt', source: 'en', target: 'ko', text: '한' }],
  ['POST /tts', 'body', { speaker: 'mijin', text: text(2000) }],
  [
    'POST /tts',
    'body',
    { speaker: 'carmen', text: 'a', speed: -5, volume: 5, pitch: 0, format: 'wav' },
  ],
  ['POST /stt', 'query', { lang: 'Chn' }],
  ['GET /maps/static', 'query', { w: '1', h: '2048', center: '127.1,37.3', level: '21' }],
  ['GET /maps/static', 'query', { w: '4096', h: '1', markers: 'type:d|pos:127 37' }],
  ['GET /maps/static', 'query', { w: '300', h: '300', center: '309000,552000', crs: 'NHN:2048' }],
  [
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '0', x: '0', tile: '0@1x.png' },
  ],
  [
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'satellite', z: '3', x: '7', tile: '7@2x.jpg' },
  ],
  [
    'GET /maps/directions',
    'query',
    {
      start: '127.1,37.3',
      goal: '129.07,35.17',
      option: 'trafast:traavoidtoll',
      waypoints: '127.5,36|128,36.5',
    },
  ],
  ['GET /maps/places', 'query', { query: '강남역', coordinate: '127.02,37.49' }],
  [
    'GET /maps/geocode',
    'query',
    {
      query: '불정로 6',
      count: '100',
      page: '2',
      language: 'eng',
      filter: 'HCODE@4113554500;4113555000',
    },
  ],
  [
    'GET /maps/reverse-geocode',
    'query',
    { coords: '129.07,35.17', orders: 'legalcode,roadaddr', output: 'xml' },
  ],
  ['GET /captcha/image/key', 'query', {}],
  ['GET /captcha/audio', 'query', { key: 't521bp3qM7Qyk2X2' }],
  ['POST /captcha/image/verify', 'body', { key: 't521bp3qM7Qyk2X2', value: 'ABC12' }],
  ['GET /shorturl', 'query', { url: 'http://d2.naver.com/helloworld/4874130' }],
  ['POST /shorturl', 'body', { url: 'https://example.com/a?b=c#d' }],
  ['POST /trends', 'body', trends()],
  [
    'POST /trends',
    'body',
    trends({ endDate: '2016-01-01', device: 'mo', gender: 'f', ages: ['1', '11'] }),
  ],
  [
    'POST /trends',
    'body',
    trends({
      keywordGroups: Array.from({ length: 5 }, (_, i) => ({
        groupName: `g${i}`,
        keywords: Array.from({ length: 20 }, (_, j) => `k${j}`),
      })),
    }),
  ],
];

const refused: [string, string, Part, unknown, string][] = [
  [
    'translation text empty',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: '' },
    'text',
  ],
  [
    'translation text over 5000',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: text(5001) },
    'text',
  ],
  [
    'unknown source language',
    'POST /translate',
    'body',
    { source: 'xx', target: 'en', text: 'a' },
    'source',
  ],
  [
    'auto as target',
    'POST /translate',
    'body',
    { source: 'ko', target: 'auto', text: 'a' },
    'target',
  ],
  [
    'source equal to target',
    'POST /translate',
    'body',
    { source: 'en', target: 'en', text: 'a' },
    'target',
  ],
  [
    'unknown engine',
    'POST /translate',
    'body',
    { engine: 'gpt', source: 'ko', target: 'en', text: 'a' },
    'engine',
  ],
  [
    'honorific with SMT',
    'POST /translate',
    'body',
    { engine: 'smt', source: 'ko', target: 'en', text: 'a', honorific: true },
    'honorific',
  ],
  [
    'honorific as text',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: 'a', honorific: 'true' },
    'honorific',
  ],
  [
    'an unknown member',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: 'a', sorce: 'ko' },
    '',
  ],
  ['TTS text empty', 'POST /tts', 'body', { speaker: 'clara', text: '' }, 'text'],
  ['TTS text over 2000', 'POST /tts', 'body', { speaker: 'clara', text: text(2001) }, 'text'],
  ['unknown speaker', 'POST /tts', 'body', { speaker: 'nara', text: 'a' }, 'speaker'],
  ['speed over 5', 'POST /tts', 'body', { speaker: 'clara', text: 'a', speed: 6 }, 'speed'],
  ['pitch under -5', 'POST /tts', 'body', { speaker: 'clara', text: 'a', pitch: -6 }, 'pitch'],
  [
    'volume not an integer',
    'POST /tts',
    'body',
    { speaker: 'clara', text: 'a', volume: 1.5 },
    'volume',
  ],
  ['format ogg', 'POST /tts', 'body', { speaker: 'clara', text: 'a', format: 'ogg' }, 'format'],
  ['no STT language', 'POST /stt', 'query', {}, 'lang'],
  ['lower-case STT language', 'POST /stt', 'query', { lang: 'kor' }, 'lang'],
  ['static map without w', 'GET /maps/static', 'query', { h: '1', center: '1,1' }, 'w'],
  ['static map w 0', 'GET /maps/static', 'query', { w: '0', h: '1', center: '1,1' }, 'w'],
  [
    'static map h over 2048',
    'GET /maps/static',
    'query',
    { w: '1', h: '2049', center: '1,1' },
    'h',
  ],
  [
    'static map level 22',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '1,1', level: '22' },
    'level',
  ],
  [
    'static map scale 3',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '1,1', scale: '3' },
    'scale',
  ],
  [
    'static map neither center nor markers',
    'GET /maps/static',
    'query',
    { w: '1', h: '1' },
    'center',
  ],
  [
    'static map latitude 95',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '127,95' },
    'center',
  ],
  [
    'tile without scale',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0.png' },
    'tile',
  ],
  [
    'tile scale 3',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0@3x.png' },
    'tile',
  ],
  [
    'tile format gif',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0@1x.gif' },
    'tile',
  ],
  [
    'tile x outside the zoom',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '2', tile: '0@1x.png' },
    'tile',
  ],
  [
    'tile mapType ..',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: '..', z: '1', x: '0', tile: '0@1x.png' },
    'mapType',
  ],
  [
    'tile mapType .',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: '.', z: '1', x: '0', tile: '0@1x.png' },
    'mapType',
  ],
  [
    'tile z negative',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '-1', x: '0', tile: '0@1x.png' },
    'z',
  ],
  ['directions without goal', 'GET /maps/directions', 'query', { start: '127,37' }, 'goal'],
  [
    'directions lat,lon swapped out of range',
    'GET /maps/directions',
    'query',
    { start: '37,127', goal: '127,37' },
    'start',
  ],
  [
    'directions unknown option',
    'GET /maps/directions',
    'query',
    { start: '127,37', goal: '128,37', option: 'fastest' },
    'option',
  ],
  [
    'directions six waypoints',
    'GET /maps/directions',
    'query',
    { start: '127,37', goal: '128,37', waypoints: Array(6).fill('127.5,37').join('|') },
    'waypoints',
  ],
  ['places without query', 'GET /maps/places', 'query', { coordinate: '127,37' }, 'query'],
  ['geocode without query', 'GET /maps/geocode', 'query', {}, 'query'],
  ['geocode empty query', 'GET /maps/geocode', 'query', { query: '' }, 'query'],
  ['geocode count 0', 'GET /maps/geocode', 'query', { query: 'a', count: '0' }, 'count'],
  ['geocode count 101', 'GET /maps/geocode', 'query', { query: 'a', count: '101' }, 'count'],
  ['geocode count twice', 'GET /maps/geocode', 'query', { query: 'a', count: ['1', '2'] }, 'count'],
  [
    'geocode language jpn',
    'GET /maps/geocode',
    'query',
    { query: 'a', language: 'jpn' },
    'language',
  ],
  ['geocode unknown parameter', 'GET /maps/geocode', 'query', { query: 'a', limit: '5' }, ''],
  [
    'reverse geocode without coords',
    'GET /maps/reverse-geocode',
    'query',
    { output: 'json' },
    'coords',
  ],
  [
    'reverse geocode output html',
    'GET /maps/reverse-geocode',
    'query',
    { coords: '127,37', output: 'html' },
    'output',
  ],
  [
    'reverse geocode unknown order',
    'GET /maps/reverse-geocode',
    'query',
    { coords: '127,37', orders: 'legalcode,zip' },
    'orders',
  ],
  ['CAPTCHA key with a parameter', 'GET /captcha/image/key', 'query', { code: '1' }, ''],
  ['CAPTCHA image without key', 'GET /captcha/image', 'query', {}, 'key'],
  ['CAPTCHA image empty key', 'GET /captcha/audio', 'query', { key: '' }, 'key'],
  [
    'CAPTCHA verify empty value',
    'POST /captcha/image/verify',
    'body',
    { key: 'k', value: '' },
    'value',
  ],
  [
    'CAPTCHA verify empty key',
    'POST /captcha/audio/verify',
    'body',
    { key: '', value: 'v' },
    'key',
  ],
  ['short URL relative', 'GET /shorturl', 'query', { url: '/a/b' }, 'url'],
  ['short URL ftp', 'POST /shorturl', 'body', { url: 'ftp://example.com/a' }, 'url'],
  ['short URL missing', 'POST /shorturl', 'body', {}, 'url'],
  ['trend before 2016', 'POST /trends', 'body', trends({ startDate: '2015-12-31' }), 'startDate'],
  [
    'trend end before start',
    'POST /trends',
    'body',
    trends({ startDate: '2017-02-01', endDate: '2017-01-31' }),
    'endDate',
  ],
  [
    'trend date that does not exist',
    'POST /trends',
    'body',
    trends({ endDate: '2017-02-30' }),
    'endDate',
  ],
  [
    'trend date in another format',
    'POST /trends',
    'body',
    trends({ endDate: '2017/02/03' }),
    'endDate',
  ],
  ['trend time unit year', 'POST /trends', 'body', trends({ timeUnit: 'year' }), 'timeUnit'],
  ['no keyword group', 'POST /trends', 'body', trends({ keywordGroups: [] }), 'keywordGroups'],
  [
    'six keyword groups',
    'POST /trends',
    'body',
    trends({ keywordGroups: Array(6).fill({ groupName: 'g', keywords: ['k'] }) }),
    'keywordGroups',
  ],
  [
    'a group without keywords',
    'POST /trends',
    'body',
    trends({ keywordGroups: [{ groupName: 'g', keywords: [] }] }),
    'keywordGroups.0.keywords',
  ],
  [
    '21 keywords',
    'POST /trends',
    'body',
    trends({ keywordGroups: [{ groupName: 'g', keywords: Array(21).fill('k') }] }),
    'keywordGroups.0.keywords',
  ],
  ['age 12', 'POST /trends', 'body', trends({ ages: ['12'] }), 'ages.0'],
  ['age as a number', 'POST /trends', 'body', trends({ ages: [1] }), 'ages.0'],
  ['an age twice', 'POST /trends', 'body', trends({ ages: ['2', '2'] }), 'ages'],
  ['device tablet', 'POST /trends', 'body', trends({ device: 'tablet' }), 'device'],
];

describe('catalogue input schemas', () => {
  it.each(accepted)('%s accepts a valid %s', (routeKey, part, input) => {
    const result = schemaOf(routeKey, part).safeParse(input);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(refused)('refuses %s', (_name, routeKey, part, input, path) => {
    const result = schemaOf(routeKey, part).safeParse(input);
    expect(result.success).toBe(false);
    const paths = (result.error?.issues ?? []).map((issue) => issue.path.join('.'));
    expect(paths).toContain(path);
    // Every issue says in words what was expected (zod/mini has no default messages).
    for (const issue of result.error?.issues ?? []) expect(issue.message).not.toBe('Invalid input');
  });

  it('splits the tile segment into y, scale and format', () => {
    const parsed = schemaOf('GET /maps/tiles/{mapType}/{z}/{x}/{tile}', 'path').parse({
      mapType: 'basic',
      z: '4',
      x: '15',
      tile: '9@2x.jpg',
    });
    expect(parsed).toEqual({
      mapType: 'basic',
      z: 4,
      x: 15,
      tile: { y: 9, scale: 2, format: 'jpg' },
    });
  });

  it('defaults the translation engine to NMT', () => {
    expect(
      schemaOf('POST /translate', 'body').parse({ source: 'ko', target: 'en', text: 'a' }),
    ).toMatchObject({ engine: 'nmt' });
  });
});
