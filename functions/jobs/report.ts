/** GET /jobs/{instanceId}/report */

import { bind } from '../../lib/http/bind.ts';
import { answerHandOff, handedOffResponse } from '../../lib/http/hand-off.ts';
import { admissionOf, callerParts, pathParams } from '../../lib/http/parts.ts';
import { reportDisposition, reportResponse } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.ts';
import type { InstancePath } from '../../lib/scan-jobs/schemas.ts';

const runtime = getRuntime();
const scanJobs = scanJobsClientOf(runtime);

// As an attachment: a browser saves the report rather than shows it on this API's origin. A
// report too large to return is handed off (303 See Other to it, stored as an attachment too).
export const handler = bind(
  jobRoutes.getJobReport,
  async (request) => {
    const report = await scanJobs.report(request.path.instanceId, request.call);
    return report.stored
      ? handedOffResponse(report.stored, report.status)
      : reportResponse(report, request.path.instanceId);
  },
  {
    ...callerParts(runtime),
    admission: admissionOf(runtime),
    pathParams,
    handOff: answerHandOff(runtime, {
      attachment: ({ instanceId }: InstancePath, type) => reportDisposition(instanceId, type),
    }),
  },
);
