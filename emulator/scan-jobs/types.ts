/** Status strings of a scan job record; the spec observes `Reservation`, the rest are inferred. */
export type ScanJobStatus = 'Reservation' | 'Progress' | 'Complete' | 'Cancel' | 'Stop';

/** The operation a job offers in its phase. */
export type ResultButton = 'cancel' | 'terminate' | 'report';

/** One element of `record_data`, field for field as the API returns it. */
export interface ScanJobRecord {
  instanceNo: string;
  memo: string;
  start_url: string;
  /** "YYYY-MM-DD HH:MM:SS", platform time (KST). */
  start_date: string;
  /** Set once the job has run to an end (Complete or Stop). */
  end_date: string | null;
  status: ScanJobStatus;
  result_button: ResultButton | null;
  crawl_cnt: number | null;
  scan_cnt: number | null;
  rescan_button: string | null;
  result_desc: string | null;
  slave_data: null;
  progress: number;
}

export const RESULT_BUTTON_BY_STATUS: Readonly<Record<ScanJobStatus, ResultButton | null>> = {
  Reservation: 'cancel',
  Progress: 'terminate',
  Complete: 'report',
  Cancel: null,
  Stop: null,
};

/** searchJobs `statusCode` values mapped to the spec's statuses. */
export const STATUS_BY_CODE: Readonly<Record<string, ScanJobStatus>> = {
  '2': 'Reservation',
  '3': 'Progress',
  '4': 'Complete',
  '91': 'Cancel',
  '93': 'Stop',
};

/** Documented codes for phases the emulator never produces (failed, URL collection, stopping). */
export const UNUSED_STATUS_CODES: readonly string[] = ['5', '12', '13', '14', '15', '92'];

/** result_desc of a job stopped through the API. */
export const STOPPED_DESCRIPTION = 'Stopped by user request.';
