import { readFileSync } from 'node:fs';
import { DEMO_SECRET_URL } from '../credentials.ts';

interface UrlEntry {
  url: string;
  [field: string]: unknown;
}

/** The bundled demo secret, as far as rebasing needs to know it; every other field is kept. */
export interface DemoSecretDocument {
  actions?: Record<string, UrlEntry>;
  triggers?: Record<string, UrlEntry>;
  [field: string]: unknown;
}

/** `url` on `origin` instead of its own; its path and query are kept. */
function rebase(url: string, origin: string): string {
  const { pathname, search } = new URL(url);
  return `${origin}${pathname}${search}`;
}

function rebaseAll(
  entries: Record<string, UrlEntry> | undefined,
  origin: string,
): Record<string, UrlEntry> | undefined {
  if (!entries) return undefined;
  return Object.fromEntries(
    Object.entries(entries).map(([name, entry]) => [
      name,
      { ...entry, url: rebase(entry.url, origin) },
    ]),
  );
}

/**
 * The bundled demo secret (or `text`, a version of it) with every action and trigger URL moved
 * onto `emulatorUrl` (an emulator on another port than the default EMULATOR_PORT, as tests and
 * `npm start` run it). A fresh copy on every call.
 */
export function demoSecretFor(
  emulatorUrl: string,
  text: string = readFileSync(DEMO_SECRET_URL, 'utf8'),
): DemoSecretDocument {
  const { origin } = new URL(emulatorUrl); // a malformed address throws here
  const secret = JSON.parse(text) as DemoSecretDocument;
  const actions = rebaseAll(secret.actions, origin);
  const triggers = rebaseAll(secret.triggers, origin);
  return {
    ...secret,
    ...(actions === undefined ? {} : { actions }),
    ...(triggers === undefined ? {} : { triggers }),
  };
}
