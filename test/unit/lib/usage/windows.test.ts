import { describe, expect, it } from 'vitest';
import { dayEndOf, dayOf, monthEndOf, monthOf, windowsOf } from '../../../../lib/usage/windows.ts';

describe('the UTC windows', () => {
  it('names the day and the month of an instant, in UTC', () => {
    const instant = Date.UTC(2026, 10, 25, 23, 59, 59, 999);
    expect(dayOf(instant)).toBe('2026-11-25');
    expect(monthOf(instant)).toBe('2026-11');
    expect(dayOf(instant + 1)).toBe('2026-11-26');
    expect(dayEndOf(instant)).toBe(instant + 1);
  });

  it('ends a month on the first of the next, across a year and in a leap February', () => {
    expect(monthEndOf(Date.UTC(2026, 11, 31, 12))).toBe(Date.UTC(2027, 0, 1));
    expect(windowsOf(Date.UTC(2028, 1, 29, 12)).monthSeconds).toBe(29 * 86400);
    expect(windowsOf(Date.UTC(2026, 1, 1)).monthSeconds).toBe(28 * 86400);
    expect(windowsOf(Date.UTC(2026, 0, 1))).toEqual({
      day: '2026-01-01',
      month: '2026-01',
      dayEndsAt: Date.UTC(2026, 0, 2),
      monthEndsAt: Date.UTC(2026, 1, 1),
      monthSeconds: 31 * 86400,
    });
  });
});
