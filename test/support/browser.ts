// Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core, a fresh profile per
// launch, 1280×800 pages that record every console error, page error and failed request.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

// Launches Chromium with a fresh user-data dir (removed on close).
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'hw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    timeout: 30_000,
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface ProblemLog {
  /** Console errors, uncaught page errors and failed requests, as "kind: text (url)". */
  problems: string[];
}

// Records a page's console errors, uncaught exceptions and network failures into `log.problems`.
export function watchProblems(page: Page): ProblemLog {
  const log: ProblemLog = { problems: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') log.problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => log.problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A download the test saved, or a poll cut short by navigation, is not a failure of the page.
    const reason = r.failure()?.errorText ?? '';
    if (!/ERR_ABORTED/.test(reason)) log.problems.push(`requestfailed: ${r.url()} ${reason}`);
  });
  return log;
}

// Signs in on the console's sign-in page with an API token and waits for the overview.
async function signInWithToken(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

// Opens a console path and waits until its main heading is there.
async function openConsolePage(page: Page, baseUrl: string, p: string, heading: RegExp | string): Promise<void> {
  await page.goto(`${baseUrl}/console${p}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

// The two page helpers of a test's console at `baseUrl()` (read when called: the API starts in beforeAll).
export function consolePages(baseUrl: () => string) {
  return {
    signIn: (page: Page, token: string): Promise<void> => signInWithToken(page, baseUrl(), token),
    open: (page: Page, p: string, heading: RegExp | string): Promise<void> =>
      openConsolePage(page, baseUrl(), p, heading),
  };
}
