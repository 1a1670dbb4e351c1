/**
 * The reference in a real browser: the Chromium of a registry package (test/helpers/browser.ts;
 * never a browser downloaded by a tool), headless, driven by playwright-core, against serverless
 * offline with every request outside the local stack refused: GET /docs loads with no network,
 * lists every route of the registry, and a call tried with the demo token answers 200.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_METHODS } from '../../../lib/http/openapi.ts';
import { routes } from '../../../lib/http/routes/index.ts';
import { browserToLaunch } from '../../helpers/browser.ts';
import { DEMO_TOKEN } from '../../helpers/platform.ts';
import { sharedStackForSuite } from '../offline.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `GET /jobs`, ..., one per method a route takes, as the document lists them. */
const expectedOperations = routes
  .flatMap((route) =>
    (route.method === 'ANY' ? ANY_METHODS : [route.method]).map(
      (method) => `${method} ${route.path}`,
    ),
  )
  .sort();

describe('the reference in a browser (GET /docs)', () => {
  const { offline } = sharedStackForSuite();
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  const outside: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    profile = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      ...(await browserToLaunch()),
      headless: true,
      args: ARGS,
    });
    // No network: anything but the local stack is refused, and noted.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${offline.baseUrl}/`)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('loads with nothing from another site, and lists every route of the registry', {
    timeout: 60_000,
  }, async () => {
    const response = await page.goto(`${offline.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const pathText =
          block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.trim().toUpperCase()} ${pathText}`;
      }),
    );
    expect([...new Set(listed)].sort()).toEqual(expectedOperations);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('takes a pasted token and tries GET /jobs: 200', { timeout: 60_000 }, async () => {
    await page.click('.auth-wrapper .authorize');
    // The scheme's text as written: `<name>` is no tag, `*` no emphasis.
    const authorizeText = (await page.locator('.auth-container').first().textContent()) ?? '';
    expect(authorizeText).toContain(
      'actions:<name>, actions:*, triggers:<name>, triggers:*, catalogue:<api>, catalogue:*, or * (everything)',
    );
    await page.fill('.auth-container input[type="text"], .auth-container input', DEMO_TOKEN);
    await page.click('.auth-btn-wrapper .authorize');
    await page.click('.btn-done');
    const block = page.locator('#operations-jobs-listJobs');
    await block.locator('.opblock-summary').click();
    await block.locator('.try-out__btn').click();
    await block.locator('.execute').click();
    const status = block.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });
});
