/**
 * `npm run smoke -- <base URL> <caller token>`: a deployed (or local) stage answers. Calls
 * GET /health (no token) and GET /jobs?limit=1 (the token, scope jobs:read), and prints one line
 * for each: the status, and the error envelope when there is one. Exits 1 when either is not
 * 200. The token is sent to the URL given, and printed nowhere.
 */
import { pathToFileURL } from 'node:url';
import { parseCommand, refused, UsageError } from './local/args.ts';

interface Check {
  readonly name: string;
  readonly path: string;
  readonly token: boolean;
}

const CHECKS: readonly Check[] = [
  { name: 'GET /health', path: '/health', token: false },
  { name: 'GET /jobs?limit=1', path: '/jobs?limit=1', token: true },
];

/** The outcome of one check, as printed. */
export interface SmokeLine {
  readonly ok: boolean;
  readonly text: string;
}

/** Runs the checks against `base`; never throws. */
export async function smoke(base: string, token: string): Promise<SmokeLine[]> {
  const origin = base.replace(/\/+$/, '');
  const lines: SmokeLine[] = [];
  for (const check of CHECKS) {
    let response: Response;
    try {
      response = await fetch(`${origin}${check.path}`, {
        headers: check.token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      lines.push({ ok: false, text: `${check.name}: no answer (${reasonOf(error)})` });
      return lines;
    }
    const text = await response.text();
    const ok = response.status === 200;
    lines.push({
      ok,
      text: ok ? `${check.name}: 200` : `${check.name}: ${response.status} ${envelopeOf(text)}`,
    });
  }
  return lines;
}

function envelopeOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    if (error) return JSON.stringify(error);
  } catch {
    // not the envelope: API Gateway's own answer, or another server's
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED')
    return 'connection refused: is the URL right, is the stage up?';
  if (cause?.code === 'ENOTFOUND')
    return 'the host does not resolve: `npx serverless info --stage <stage>` prints the URL';
  if ((error as Error).name === 'TimeoutError') return 'no answer within 15 s';
  return cause?.message ?? (error as Error).message ?? String(error);
}

const USAGE =
  'usage: npm run smoke -- <base URL, such as https://abc123.execute-api.eu-west-1.amazonaws.com> <caller token> (a token that starts with "-" goes after "--")';

/** The stage's URL and the caller's token of the command line; throws UsageError. */
export function smokeArgs(args: readonly string[]): { base: string; token: string } {
  const { positionals } = parseCommand(args, {});
  const [base, token, ...rest] = positionals;
  if (!base || !token) throw new UsageError('a base URL and a caller token are needed');
  if (rest.length > 0) throw new UsageError(`unknown argument: ${rest[0]}`);
  if (!/^https?:\/\//.test(base)) throw new UsageError(`not an http(s) URL: ${base}`);
  return { base, token };
}

async function main(args: readonly string[]): Promise<number> {
  let base: string;
  let token: string;
  try {
    ({ base, token } = smokeArgs(args));
  } catch (error) {
    return refused(error, USAGE);
  }
  const lines = await smoke(base, token);
  for (const line of lines) console.log(`${line.ok ? 'ok  ' : 'FAIL'} ${line.text}`);
  return lines.length === CHECKS.length && lines.every((line) => line.ok) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
