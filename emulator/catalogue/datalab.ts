/**
 * Search trend, `POST /datalab/v1/search`. Ratios are deterministic: a
 * hash of each group's keywords and the period, shaped by season, scaled so the largest value
 * of the call is 100. Periods after the gateway's today have no data and are left out.
 */
import { createHash } from 'node:crypto';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { isJson } from './params.ts';
import { badRequest, endpointJson } from './responses.ts';

const DATALAB_EARLIEST_DATE = '2016-01-01';
const MAX_KEYWORD_GROUPS = 5;
const MAX_KEYWORDS_PER_GROUP = 20;
const TIME_UNITS = ['date', 'week', 'month'] as const;
type TimeUnit = (typeof TIME_UNITS)[number];
const DAY_MS = 86_400_000;

interface KeywordGroup {
  readonly groupName: string;
  readonly keywords: readonly string[];
}

interface TrendRequest {
  readonly startDate: string;
  readonly endDate: string;
  readonly timeUnit: TimeUnit;
  readonly keywordGroups: readonly KeywordGroup[];
  /** device, gender and ages, folded into the hash so they change the numbers. */
  readonly segment: string;
}

/** Milliseconds at UTC midnight of a real yyyy-MM-dd date; undefined otherwise. */
function dayOf(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const time = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text
    ? undefined
    : time;
}

const isNonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '';

function checkGroups(value: unknown): KeywordGroup[] | string {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_KEYWORD_GROUPS) {
    return `keywordGroups must hold 1 to ${MAX_KEYWORD_GROUPS} groups`;
  }
  for (const group of value as unknown[]) {
    const { groupName, keywords } = (group ?? {}) as Record<string, unknown>;
    if (!isNonEmptyString(groupName)) return 'keywordGroups.groupName is required';
    if (
      !Array.isArray(keywords) ||
      keywords.length === 0 ||
      keywords.length > MAX_KEYWORDS_PER_GROUP ||
      !keywords.every(isNonEmptyString)
    ) {
      return `keywordGroups.keywords must hold 1 to ${MAX_KEYWORDS_PER_GROUP} words`;
    }
  }
  return value as KeywordGroup[];
}

const AGES = new Set(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);

function checkSegment(body: Record<string, unknown>): string | { segment: string } {
  const { device, gender, ages } = body;
  if (device !== undefined && device !== '' && device !== 'pc' && device !== 'mo') {
    return 'device must be pc or mo';
  }
  if (gender !== undefined && gender !== '' && gender !== 'm' && gender !== 'f') {
    return 'gender must be m or f';
  }
  if (ages !== undefined && !(Array.isArray(ages) && ages.every((age) => AGES.has(String(age))))) {
    return 'ages must be an array of "1" to "11"';
  }
  return { segment: JSON.stringify([device ?? '', gender ?? '', ages ?? []]) };
}

function parseTrendRequest(body: unknown): TrendRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The body must be a JSON object';
  const fields = body as Record<string, unknown>;
  const start = dayOf(fields['startDate']);
  const end = dayOf(fields['endDate']);
  if (start === undefined) return 'startDate must be a yyyy-MM-dd date';
  if (end === undefined) return 'endDate must be a yyyy-MM-dd date';
  if (start < (dayOf(DATALAB_EARLIEST_DATE) ?? 0))
    return `startDate must be ${DATALAB_EARLIEST_DATE} or later`;
  if (end < start) return 'endDate must not be before startDate';
  const timeUnit = fields['timeUnit'];
  if (!(TIME_UNITS as readonly unknown[]).includes(timeUnit))
    return 'timeUnit must be date, week or month';
  const keywordGroups = checkGroups(fields['keywordGroups']);
  if (typeof keywordGroups === 'string') return keywordGroups;
  const segment = checkSegment(fields);
  if (typeof segment === 'string') return segment;
  return {
    startDate: fields['startDate'] as string,
    endDate: fields['endDate'] as string,
    timeUnit: timeUnit as TimeUnit,
    keywordGroups,
    segment: segment.segment,
  };
}

/** The start of the week (Monday) or month holding `day`. */
function unitStart(day: number, unit: TimeUnit): number {
  const date = new Date(day);
  if (unit === 'date') return day;
  if (unit === 'week') return day - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextUnit(day: number, unit: TimeUnit): number {
  if (unit === 'date') return day + DAY_MS;
  if (unit === 'week') return day + 7 * DAY_MS;
  const date = new Date(day);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Period labels: each unit's first day, the first one clipped to startDate. */
function periodsOf(startDate: string, endDate: string, unit: TimeUnit, today: number): string[] {
  const start = dayOf(startDate) ?? 0;
  const end = Math.min(dayOf(endDate) ?? 0, today);
  const periods: string[] = [];
  for (let day = unitStart(start, unit); day <= end; day = nextUnit(day, unit)) {
    periods.push(new Date(Math.max(day, start)).toISOString().slice(0, 10));
  }
  return periods;
}

function rawInterest(group: KeywordGroup, period: string, segment: string): number {
  const seed = JSON.stringify([group.keywords, segment, period]);
  const noise = createHash('sha256').update(seed).digest().readUInt16BE(0) / 65_535;
  const month = Number(period.slice(5, 7));
  const season = 1 + 0.3 * Math.sin((month / 12) * 2 * Math.PI);
  const weight = createHash('sha256').update(JSON.stringify(group.keywords)).digest()[0] ?? 0;
  return (0.2 + noise) * season * (1 + weight / 255);
}

function trend(request: TrendRequest, now: number): unknown {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const periods = periodsOf(request.startDate, request.endDate, request.timeUnit, today);
  const raw = request.keywordGroups.map((group) =>
    periods.map((period) => rawInterest(group, period, request.segment)),
  );
  const max = Math.max(0, ...raw.flat());
  return {
    startDate: request.startDate,
    endDate: request.endDate,
    timeUnit: request.timeUnit,
    results: request.keywordGroups.map((group, index) => ({
      title: group.groupName,
      keywords: group.keywords,
      data: periods.map((period, at) => ({
        period,
        ratio: Number((((raw[index]?.[at] ?? 0) / max) * 100).toFixed(5)),
      })),
    })),
  };
}

function searchTrend(request: GatewayRequest): GatewayResponse {
  if (!isJson(request)) return badRequest('Content-Type must be application/json');
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    return badRequest('The body is not valid JSON.');
  }
  const parsed = parseTrendRequest(body);
  if (typeof parsed === 'string') return badRequest(parsed);
  return endpointJson(200, trend(parsed, request.gatewayNow));
}

export function datalabRoutes(authenticate: Authenticator): ApiRoute[] {
  return [
    {
      method: 'POST',
      path: '/datalab/v1/search',
      authenticate,
      handle: ({ request }) => searchTrend(request),
    },
  ];
}
