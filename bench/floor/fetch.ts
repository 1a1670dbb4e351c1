/** The floor of the benchmark on Node's built-in fetch (list-jobs.ts). */
import { listJobsHandler } from './list-jobs.ts';

export const handler = listJobsHandler(async (request) => {
  const answer = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  return {
    status: answer.status,
    body: await answer.text(),
    contentType: answer.headers.get('content-type') ?? 'application/json',
  };
});
