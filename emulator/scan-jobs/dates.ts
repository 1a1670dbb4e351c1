/** The platform reports local time in Korea (UTC+9, no daylight saving). */
const PLATFORM_UTC_OFFSET_MS = 9 * 60 * 60 * 1000;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Epoch ms to "YYYY-MM-DD HH:MM:SS" in platform time. */
export function formatPlatformDate(epochMs: number): string {
  return new Date(epochMs + PLATFORM_UTC_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** "YYYY-MM-DD HH:MM:SS" in platform time to epoch ms. */
export function parsePlatformDate(text: string): number {
  const parts = DATE_TIME.exec(text);
  if (!parts) throw new Error(`Not a platform date: "${text}"`);
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(year, month - 1, day, hour, minute, second) - PLATFORM_UTC_OFFSET_MS;
}

/** The report's slash form, "YYYY/MM/DD hh:mm:ss". */
export function toReportDate(platformDate: string): string {
  return platformDate.replaceAll('-', '/');
}
