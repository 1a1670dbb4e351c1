/**
 * What a scan job route adds to the platform's bare `901` ("API Call Fail", its answer to any
 * input it refuses): the usual causes of a refusal of that call, so that a caller knows where to
 * look. The platform's own details, when it sends some, come first, unchanged.
 */
import { UpstreamError } from '../core/errors.ts';

export type JobOperation = 'list' | 'search' | 'cancel' | 'stop' | 'report';

/** The platform's code for an input it refuses. */
const INPUT_REFUSED = '901';

// No example number: one from the local demo would send a caller of a real stage looking for it.
const UNKNOWN_JOB = 'no job has this instanceNo (the number GET /jobs lists for each job)';
const PAGE = 'limit over 100 (the largest page the platform serves), or a page past the last';

const USUAL_CAUSES: Readonly<Record<JobOperation, string>> = {
  list: PAGE,
  search: `${PAGE}; a statusCode the platform does not know`,
  cancel: `${UNKNOWN_JOB}; the job is not in Reservation (only a job that has not started can be cancelled)`,
  stop: `${UNKNOWN_JOB}; the job is not in Progress (only a running job can be stopped)`,
  report: `${UNKNOWN_JOB}; the job is not Complete (a report exists once the job has finished)`,
};

/** The hint a 901 of this operation carries. */
export function usualCausesOf(operation: JobOperation): string {
  return `The platform refused the call (901). Usual causes: ${USUAL_CAUSES[operation]}.`;
}

/**
 * `thrown`, with the hint added to its details when it is the platform's 901; anything else
 * unchanged.
 */
export function withJobHint(thrown: unknown, operation: JobOperation): unknown {
  if (!(thrown instanceof UpstreamError) || thrown.code !== INPUT_REFUSED) return thrown;
  const own = typeof thrown.details === 'string' && thrown.details.trim() ? thrown.details : '';
  const hint = usualCausesOf(operation);
  const decorated = new UpstreamError({
    status: thrown.status,
    code: thrown.code,
    message: thrown.message,
    details: own ? `${own} (${hint})` : hint,
    headers: thrown.headers,
    reason: `upstream-901 ${operation}`,
    cause: thrown.cause,
  });
  return decorated;
}
