/**
 * The requests of the CORS suites (the default in local-stack/cors.ts, a stage's origins in
 * stage-settings.e2e.test.ts): an origin of the stage's and another, a preflight, a GET, and
 * the CORS headers of an answer.
 */
import { DEMO_TOKEN } from '../helpers/platform.ts';

export const APP = 'https://app.example.com';
export const OTHER = 'https://evil.example.net';

export const corsHeadersOf = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

export const preflight = (base: string, origin: string) =>
  fetch(`${base}/jobs`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
  });

export const get = (base: string, origin: string, token = DEMO_TOKEN) =>
  fetch(`${base}/jobs`, { headers: { origin, authorization: `Bearer ${token}` } });
