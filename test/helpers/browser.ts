/**
 * The browser the browser tests drive, with nothing installed outside `npm ci`: on Linux x64,
 * the headless Chromium shipped inside the @sparticuz/chromium package (its npm package carries
 * the x64 build only). Elsewhere (macOS, Windows, Linux on arm64) the machine's own Google
 * Chrome, through playwright's `chrome` channel (docs/testing.md).
 *
 * The package extracts its browser into the temporary folder it is given (TMPDIR). A child
 * process does that, into a folder of its own, which is then renamed into place: so the browser
 * of one installed version is extracted once, next to that version, and two test runs starting
 * at once never read a half-written one.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import Chromium from '@sparticuz/chromium';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'node_modules/@sparticuz/chromium');
const run = promisify(execFile);

/** How playwright is to find its browser: a path, or an installed Chrome. */
export type BrowserToLaunch = { executablePath: string } | { channel: 'chrome' };

/** The browser of this machine, extracted first when it is the package's. */
export async function browserToLaunch(): Promise<BrowserToLaunch> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return { channel: 'chrome' };
  const { version } = JSON.parse(await readFile(path.join(PACKAGE, 'package.json'), 'utf8')) as {
    version: string;
  };
  const home = path.join(ROOT, 'node_modules/.cache', `sparticuz-chromium-${version}`);
  const executablePath = path.join(home, 'chromium');
  if (existsSync(executablePath)) return { executablePath };
  await mkdir(path.dirname(home), { recursive: true });
  const scratch = await mkdtemp(`${home}-`);
  try {
    await run(process.execPath, [import.meta.filename], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: scratch },
    });
    // Another run may have put its copy in place first: then that one is used.
    await rename(scratch, home).catch(() => undefined);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  if (!existsSync(executablePath)) throw new Error(`no browser at ${executablePath}`);
  return { executablePath };
}

// Run as a program (by browserToLaunch): extracts the browser into TMPDIR.
if (process.argv[1] === import.meta.filename) await Chromium.executablePath();
