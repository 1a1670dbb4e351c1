/** The floor of the benchmark on an undici Agent, one per container (list-jobs.ts). */
import { Agent } from 'undici';
import { listJobsHandler } from './list-jobs.ts';

const agent = new Agent({ keepAliveTimeout: 4000, connections: 64 });

export const handler = listJobsHandler(async (request) => {
  const url = new URL(request.url);
  const answer = await agent.request({
    origin: url.origin,
    path: url.pathname + url.search,
    method: request.method as 'GET' | 'POST',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  return {
    status: answer.statusCode,
    body: await answer.body.text(),
    contentType: String(answer.headers['content-type'] ?? 'application/json'),
  };
});
