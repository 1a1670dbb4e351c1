/** What the short URLs and search trends routes accept and refuse before anything is sent. */
import { describe } from 'vitest';
import { utilityEntries } from '../../../../lib/catalogue/utility.ts';
import { type Accepted, checkInputSchemas, type Refused } from './input-schemas.ts';

const trends = (changes: Record<string, unknown> = {}) => ({
  startDate: '2016-01-01',
  endDate: '2016-12-31',
  timeUnit: 'month',
  keywordGroups: [{ groupName: 'g', keywords: ['k'] }],
  ...changes,
});

const accepted: Accepted[] = [
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

const refused: Refused[] = [
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

describe('utility input schemas', () => {
  checkInputSchemas(utilityEntries, accepted, refused);
});
