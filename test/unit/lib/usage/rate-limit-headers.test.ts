/**
 * The RateLimit-Policy and RateLimit fields: the Structured Field serialization against the
 * examples of draft-ietf-httpapi-ratelimit-headers-11, then the fields of the plans.
 */
import { describe, expect, it } from 'vitest';
import type { UsageState } from '../../../../lib/usage/limits.ts';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import {
  type ListMember,
  rateLimitFields,
  serializeList,
} from '../../../../lib/usage/rate-limit-headers.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

/**
 * RFC 9651 serializes a List's members joined by a comma and one space; the draft writes some
 * of its examples without the space, which parses the same.
 */
const canonical = (field: string) => field.replace(/,(?! )/g, ', ');

describe('serializeList, against the draft examples', () => {
  it.each<[string, ListMember[]]>([
    // Section 3.
    [
      '"burst";q=100;w=60,"daily";q=1000;w=86400',
      [
        {
          value: 'burst',
          params: [
            ['q', 100],
            ['w', 60],
          ],
        },
        {
          value: 'daily',
          params: [
            ['q', 1000],
            ['w', 86400],
          ],
        },
      ],
    ],
    // Section 3.2.
    [
      '"default";q=100;w=10',
      [
        {
          value: 'default',
          params: [
            ['q', 100],
            ['w', 10],
          ],
        },
      ],
    ],
    [
      '"permin";q=50;w=60,"perhr";q=1000;w=3600',
      [
        {
          value: 'permin',
          params: [
            ['q', 50],
            ['w', 60],
          ],
        },
        {
          value: 'perhr',
          params: [
            ['q', 1000],
            ['w', 3600],
          ],
        },
      ],
    ],
    // Section 4 and 4.2.
    [
      '"default";r=50;t=30',
      [
        {
          value: 'default',
          params: [
            ['r', 50],
            ['t', 30],
          ],
        },
      ],
    ],
    // Appendix B.3.1.
    [
      '"hour";q=1000;w=3600, "day";q=5000;w=86400',
      [
        {
          value: 'hour',
          params: [
            ['q', 1000],
            ['w', 3600],
          ],
        },
        {
          value: 'day',
          params: [
            ['q', 5000],
            ['w', 86400],
          ],
        },
      ],
    ],
    [
      '"day";r=100;t=36000',
      [
        {
          value: 'day',
          params: [
            ['r', 100],
            ['t', 36000],
          ],
        },
      ],
    ],
    // The FAQ: a parameter the draft does not define is a comment.
    [
      '"sliding";q=100;w=60;burst=1000',
      [
        {
          value: 'sliding',
          params: [
            ['q', 100],
            ['w', 60],
            ['burst', 1000],
          ],
        },
      ],
    ],
  ])('writes %s', (example, members) => {
    expect(serializeList(members)).toBe(canonical(example));
  });

  it('escapes a string, refuses what is no sf value', () => {
    expect(serializeList([{ value: 'a "b" \\c', params: [['x', 'y']] }])).toBe(
      '"a \\"b\\" \\\\c";x="y"',
    );
    expect(() => serializeList([{ value: 'é', params: [] }])).toThrow(RangeError);
    expect(() => serializeList([{ value: 'a', params: [['Q', 1]] }])).toThrow(RangeError);
    expect(() => serializeList([{ value: 'a', params: [['q', 1.5]] }])).toThrow(RangeError);
    expect(() => serializeList([{ value: 'a', params: [['q', 1e16]] }])).toThrow(RangeError);
  });
});

describe('rateLimitFields', () => {
  const nowMs = Date.UTC(2026, 1, 10, 23, 59, 30); // 30 s before the day ends, in February
  const windows = windowsOf(nowMs);
  const counts = { requests: 1, translate: 0, tts: 12 };
  const state: UsageState = {
    tat: nowMs * 1000 + 400_000, // the bucket runs 400 ms ahead
    day: '2026-02-10',
    dayCounts: { requests: 7, translate: 0, tts: 112 },
    month: '2026-02',
    monthCounts: { requests: 70, translate: 5, tts: 1000 },
  };

  it('writes one item per limit that applies, the caller first, then the account', () => {
    const plan = {
      rateRps: 5,
      burst: 10,
      dayQuotaRequest: 10,
      monthQuotaCharacters: { translate: 100, tts: 5000 },
    };
    const fields = rateLimitFields([
      { holder: 'caller', rules: rulesOf(plan), state, counts, nowMs, windows },
      {
        holder: 'account',
        rules: rulesOf({ monthQuotaRequest: 1000 }),
        state,
        counts,
        nowMs,
        windows,
      },
    ]);
    // A tts request: the translate quota does not apply to it; February has 28 days.
    expect(fields['RateLimit-Policy']).toBe(
      '"caller-rate";q=5;w=1;pgw-burst=10, "caller-day";q=10;w=86400, ' +
        `"caller-month-tts";q=5000;w=${28 * 86400};pgw-qu="characters", ` +
        `"account-month";q=1000;w=${28 * 86400}`,
    );
    // 400 ms ahead with 200 ms a token and 1800 ms of tolerance: 8 now, the next in 200 ms.
    expect(fields.RateLimit).toBe(
      '"caller-rate";r=8;t=1, "caller-day";r=3;t=30, ' +
        `"caller-month-tts";r=4000;t=${18 * 86400 + 30}, "account-month";r=930;t=${18 * 86400 + 30}`,
    );
  });

  it('counts a past window as unused, and a full bucket as free until it is spent', () => {
    const fields = rateLimitFields([
      {
        holder: 'caller',
        rules: rulesOf({ rateRps: 2, dayQuotaRequest: 10 }),
        state: { ...state, tat: 0, day: '2026-02-09' },
        counts,
        nowMs,
        windows,
      },
    ]);
    expect(fields.RateLimit).toBe('"caller-rate";r=2;t=0, "caller-day";r=10;t=30');
  });

  it('writes nothing for no plan, and never a negative remainder', () => {
    expect(rateLimitFields([])).toEqual({});
    const over = rateLimitFields([
      { holder: 'caller', rules: rulesOf({ dayQuotaRequest: 5 }), state, counts, nowMs, windows },
    ]);
    expect(over.RateLimit).toBe('"caller-day";r=0;t=30');
  });
});
