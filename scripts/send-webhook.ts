/**
 * `npm run webhook -- [name] [json body] [--id <webhook-id>]`: signs a delivery with the
 * webhook's secret (Standard Webhooks, from the secret file in use, the demo one by default;
 * during a rotation, the last of its `secrets`, the newest) and posts it to the local
 * `POST /webhooks/{name}` on `PORT` (3000 by default, as npm start). Send the same --id twice to
 * see that its action runs once. When nothing answers there, it says in one line what to start.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { parseCommand, refused, UsageError } from './local/args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const USAGE = 'usage: npm run webhook -- [name] [json body] [--id <webhook-id>]';

/** The webhook, the body and the delivery's id of the command line; throws UsageError. */
export function webhookArgs(args: readonly string[]): { name: string; body: string; id: string } {
  const { values, positionals } = parseCommand(args, { id: { type: 'string' } });
  const [name = 'demo', body = '{"name":"webhook"}', ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unknown argument: ${rest[0]}`);
  if (values.id === '') throw new UsageError('--id needs a value');
  return { name, body, id: values.id ?? `msg_${randomUUID()}` };
}

async function main(args: readonly string[]): Promise<number> {
  let name: string;
  let body: string;
  let id: string;
  try {
    ({ name, body, id } = webhookArgs(args));
  } catch (error) {
    return refused(error, USAGE);
  }
  const secretFile = path.resolve(
    process.env.SECRETS_FILE || path.join(ROOT, 'emulator/demo-secret.json'),
  );
  const secret = JSON.parse(await readFile(secretFile, 'utf8')) as {
    webhooks?: Record<string, { secret?: string; secrets?: string[] }>;
  };
  const webhook = secret.webhooks?.[name];
  const signingSecret = webhook?.secret ?? webhook?.secrets?.at(-1);
  if (!signingSecret) {
    console.error(`No webhook "${name}" in ${secretFile}`);
    return 1;
  }
  const timestamp = new Date();
  const signature = new Webhook(signingSecret).sign(id, timestamp, body);
  const origin = `http://127.0.0.1:${process.env.PORT || 3000}`;
  const url = `${origin}/webhooks/${encodeURIComponent(name)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
  } catch (error) {
    console.error(unreachable(error, origin));
    return 1;
  }
  console.log(`${response.status} ${await response.text()}  (webhook-id ${id})`);
  return 0;
}

/** One line saying what to start, for a connection nobody answered; no stack trace. */
function unreachable(error: unknown, where: string): string {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  if (code === 'ECONNREFUSED') {
    return (
      `Nothing answers on ${where}: start the functions first (npm start), or set PORT to the ` +
      'port npm start listens on.'
    );
  }
  const reason = error instanceof Error ? (error.cause as Error)?.message || error.message : '';
  return `Could not post to ${where}: ${reason || String(error)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
