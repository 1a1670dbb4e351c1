import { formatPlatformDate, parsePlatformDate, toReportDate } from './dates.ts';
import type { ScanJobRecord } from './types.ts';

/** The report of a finished job, with the mixed-case keys of the real API. */
export interface ScanReport {
  report_date: string;
  Target_Info: string;
  Crawl_Time: string;
  Scan_Time: string;
  Excluded_Url: string[];
  Login_Info: string;
  Vulnerability_Category: string;
  User_Agent: string;
  Memo: string;
  Scanned_Domain_List: string[];
  Not_Scanned_Domain_List: string[];
  Classify_byRisk_Level: { Total: number; High: number; Medium: number; Low: number };
}

// Korean text on purpose: clients must pass the report through byte for byte, UTF-8 included.
const LOGIN_NOT_USED = '사용 안 함';
const VULNERABILITY_CATEGORIES =
  'SQL Injection, Cross Site Scripting, 디렉터리 인덱싱, 파일 업로드';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Crawling takes the first third of the run, scanning the rest. */
function crawlEnd(startDate: string, endDate: string): string {
  const start = parsePlatformDate(startDate);
  const end = parsePlatformDate(endDate);
  return formatPlatformDate(start + Math.floor((end - start) / 3 / 1000) * 1000);
}

function riskCounts(instanceNo: string): ScanReport['Classify_byRisk_Level'] {
  const seed = Number(instanceNo);
  const High = seed % 3;
  const Medium = seed % 5;
  const Low = (seed % 7) + 1;
  return { Total: High + Medium + Low, High, Medium, Low };
}

/** A deterministic report for a Complete job. */
export function buildReport(job: ScanJobRecord): ScanReport {
  const endDate = job.end_date ?? job.start_date;
  const crawlEndDate = crawlEnd(job.start_date, endDate);
  return {
    report_date: endDate,
    Target_Info: job.start_url,
    Crawl_Time: `${toReportDate(job.start_date)}~${toReportDate(crawlEndDate)}`,
    Scan_Time: `${toReportDate(crawlEndDate)}~${toReportDate(endDate)}`,
    Excluded_Url: [],
    Login_Info: LOGIN_NOT_USED,
    Vulnerability_Category: VULNERABILITY_CATEGORIES,
    User_Agent: 'PC Chrome',
    Memo: job.memo,
    Scanned_Domain_List: [hostOf(job.start_url)],
    Not_Scanned_Domain_List: [],
    Classify_byRisk_Level: riskCounts(job.instanceNo),
  };
}
