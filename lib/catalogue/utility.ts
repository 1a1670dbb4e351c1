/**
 * Utility APIs (one function, `catalogueGroup` below): short URLs and the DataLab search trend.
 */
import * as z from 'zod/mini';
import { catalogueGroup, defineEntry } from './entry.ts';
import { httpUrl, isoDate, oneOf, strictInput, text } from './fields.ts';

const shortUrlQuerySchema = strictInput({ url: httpUrl() });
type ShortUrlQuery = z.infer<typeof shortUrlQuerySchema>;
const shortUrlBodySchema = strictInput({ url: httpUrl() });
type ShortUrlBody = z.infer<typeof shortUrlBodySchema>;

/** DataLab has data from this day on. */
const TRENDS_FIRST_DATE = '2016-01-01';
const TREND_AGES = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'] as const;

const keywordGroup = strictInput({
  groupName: text(1, 100),
  keywords: z
    .array(text(1, 100), 'expected an array of keywords')
    .check(
      z.minLength(1, 'expected 1 to 20 keywords'),
      z.maxLength(20, 'expected 1 to 20 keywords'),
    ),
});

const trendsBodySchema = strictInput({
  startDate: isoDate(),
  endDate: isoDate(),
  timeUnit: oneOf(['date', 'week', 'month']),
  keywordGroups: z
    .array(keywordGroup, 'expected an array of keyword groups')
    .check(
      z.minLength(1, 'expected 1 to 5 keyword groups'),
      z.maxLength(5, 'expected 1 to 5 keyword groups'),
    ),
  device: z.optional(oneOf(['pc', 'mo'])),
  gender: z.optional(oneOf(['m', 'f'])),
  ages: z.optional(
    z
      .array(oneOf(TREND_AGES), 'expected an array of age groups "1".."11"')
      .check(
        z.minLength(1, 'expected at least one age group'),
        z.maxLength(TREND_AGES.length, 'expected each age group at most once'),
      ),
  ),
}).check(
  // yyyy-MM-dd compares as text in date order.
  z.refine((body) => body.startDate >= TRENDS_FIRST_DATE, {
    message: `expected ${TRENDS_FIRST_DATE} or later`,
    path: ['startDate'],
  }),
  z.refine((body) => body.endDate >= body.startDate, {
    message: 'expected endDate on or after startDate',
    path: ['endDate'],
  }),
  z.refine((body) => body.ages === undefined || new Set(body.ages).size === body.ages.length, {
    message: 'expected each age group at most once',
    path: ['ages'],
  }),
);
type TrendsBody = z.infer<typeof trendsBodySchema>;

const SHORT_URL_ANSWER = {
  kind: 'json-or-xml',
  contentTypes: ['application/json', 'text/xml'],
} as const;

export const utilityEntries = catalogueGroup('catalogueUtility', [
  defineEntry<undefined, ShortUrlQuery>({
    id: 'shortUrl',
    api: 'shorturl',
    method: 'GET',
    path: '/shorturl',
    summary: 'Shorten a URL (JSON, or XML with Accept: text/xml)',
    upstream: { method: 'GET', paths: ['/util/v1/shorturl'] },
    sends: 'query',
    answers: SHORT_URL_ANSWER,
    idempotent: true,
    query: shortUrlQuerySchema,
    toUpstream: ({ query }) => ({ params: [['url', query.url]] }),
  }),
  defineEntry<ShortUrlBody>({
    id: 'shortUrlPost',
    api: 'shorturl',
    method: 'POST',
    path: '/shorturl',
    summary: 'Shorten a URL given in a JSON body',
    upstream: { method: 'POST', paths: ['/util/v1/shorturl'] },
    sends: 'form',
    answers: SHORT_URL_ANSWER,
    idempotent: false,
    body: shortUrlBodySchema,
    toUpstream: ({ body }) => ({ params: [['url', body.url]] }),
  }),
  defineEntry<TrendsBody>({
    id: 'trends',
    api: 'trends',
    method: 'POST',
    path: '/trends',
    summary: 'Search trend by period (DataLab)',
    upstream: { method: 'POST', paths: ['/datalab/v1/search'] },
    sends: 'json',
    answers: { kind: 'json', contentTypes: ['application/json'] },
    // Counted against a daily quota: not repeated once the platform may have seen it.
    idempotent: false,
    body: trendsBodySchema,
    toUpstream: ({ body }) => ({ json: body }),
  }),
]);
