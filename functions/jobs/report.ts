/** GET /jobs/{instanceId}/report */

import { callerRoute } from '../../lib/http/caller-route.js';
import { answerHandOff, handedOffResponse } from '../../lib/http/hand-off.js';
import { reportDisposition, reportResponse } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.js';
import type { InstancePath } from '../../lib/scan-jobs/schemas.js';

const scanJobs = scanJobsClientOf(getRuntime());

// As an attachment: a browser saves the report rather than shows it on this API's origin. A
// report too large to return is handed off (303 See Other to it, stored as an attachment too).
export const handler = callerRoute(
  jobRoutes.getJobReport,
  async (request) => {
    const report = await scanJobs.report(request.path.instanceId, request.call);
    return report.stored
      ? handedOffResponse(report.stored, report.status)
      : reportResponse(report, request.path.instanceId);
  },
  {
    handOff: answerHandOff(getRuntime(), {
      attachment: ({ instanceId }: InstancePath, type) => reportDisposition(instanceId, type),
    }),
  },
);
