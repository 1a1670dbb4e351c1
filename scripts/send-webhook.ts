/**
 * `npm run webhook -- [name] [json body] [--id=<webhook-id>]`: signs a delivery with the
 * webhook's secret (Standard Webhooks, from the secret file in use, the demo one by default;
 * during a rotation, the last of its `secrets`, the newest) and posts it to the local
 * `POST /webhooks/{name}`. Send the same --id twice to see that its action runs once.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const id = args.find((a) => a.startsWith('--id='))?.slice(5) ?? `msg_${randomUUID()}`;
const [name = 'demo', body = '{"name":"webhook"}'] = args.filter((a) => !a.startsWith('--'));

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
  process.exit(1);
}
const timestamp = new Date();
const signature = new Webhook(signingSecret).sign(id, timestamp, body);
const url = `http://127.0.0.1:${process.env.PORT || 3000}/webhooks/${encodeURIComponent(name)}`;
const response = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  },
  body,
});
console.log(`${response.status} ${await response.text()}  (webhook-id ${id})`);
