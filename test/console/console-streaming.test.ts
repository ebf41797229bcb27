// The console's Streaming & alerts page in headless Chromium against the real API and worker: a destination that
// delivers (a local webhook receiver) shows active, caught up and its delivered count; one that cannot (nothing
// listens) shows failing with the reason; a firing alert is listed. Loaded lazily: the first screen does not carry it.
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { INestApplicationContext } from '@nestjs/common';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type TestBrowser, watchProblems } from '../support/browser';
import { call } from '../support/http';
import { freePort } from '../support/net';
import { startTestWorker } from '../support/worker';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);
const DIST = path.resolve(__dirname, '../../apps/console/dist');

let api: TestApi;
let worker: INestApplicationContext;
let browser: TestBrowser;
let server: http.Server;
let auditor: string;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, ...(body ? { body } : {}) });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = await startTestApi({ STREAM_POLL_MS: '200', STREAM_BACKOFF_MAX_MS: '2000', ALERT_INTERVAL_SEC: '0.5' });
  worker = await startTestWorker(api.config);
  browser = await launchBrowser();
  await fs.mkdir(SHOTS, { recursive: true });
  auditor = (await admin('POST', '/v1/tokens', { name: 'Ada Auditor', role: 'auditor' })).body.token;
  const port = (server.address() as { port: number }).port;
  expect(
    (
      await admin('POST', '/v1/streaming/destinations', {
        name: 'soar-webhook',
        target: { type: 'webhook', url: `http://127.0.0.1:${port}/h` },
        secrets: { webhookSecret: 's'.repeat(40) },
        streams: { auditLog: {} },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await admin('POST', '/v1/streaming/destinations', {
        name: 'dead-syslog',
        target: { type: 'syslog_tcp', host: '127.0.0.1', port: await freePort() },
        streams: { auditLog: {} },
      })
    ).status,
  ).toBe(201);
  expect(
    (await admin('POST', '/v1/alerts/rules', { name: 'key-age', kind: 'signing_key_age', params: { maxAgeDays: 0 } }))
      .status,
  ).toBe(201);
  // Something to deliver.
  await admin('POST', '/v1/groups', { name: 'streamed-group' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await api?.close();
  await new Promise((r) => server?.close(r));
});

// Signs in with a token and opens the streaming page.
async function openStreaming(page: Page, token: string): Promise<void> {
  await page.goto(`${api.baseUrl}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.getByRole('link', { name: 'Streaming & alerts' }).click();
  await page.getByRole('heading', { level: 1, name: 'Streaming & alerts' }).waitFor();
}

describe('console streaming page', () => {
  it('shows each destination’s state, lag, delivered count and last error, and the alerts', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await openStreaming(page, auditor);
    const ok = page.locator('[data-testid="destination-soar-webhook"]');
    await expect.poll(() => ok.innerText(), { timeout: 20_000 }).toMatch(/active/);
    await expect.poll(() => ok.locator('[data-testid="lag"]').innerText(), { timeout: 20_000 }).toBe('caught up');
    await expect
      .poll(async () => Number((await ok.locator('[data-testid="delivered"]').innerText()).replace(/\D/g, '')), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    const bad = page.locator('[data-testid="destination-dead-syslog"]');
    await expect.poll(() => bad.innerText(), { timeout: 20_000 }).toMatch(/failing/);
    expect(await bad.locator('[data-testid="last-error"]').innerText()).toMatch(/ECONNREFUSED/);
    const alert = page.locator('[data-testid="alert-key-age"]');
    await expect.poll(() => alert.innerText(), { timeout: 20_000 }).toMatch(/firing/);
    await page.screenshot({ path: path.join(SHOTS, 'streaming.png'), fullPage: true });
    expect(log.problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('leads the overview’s Needs attention with the firing alert, linked to the streaming page', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await page.goto(`${api.baseUrl}/console/`);
    await page.getByLabel('API token').fill(auditor);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const firing = page.locator('[data-testid="attention-alerts"]');
    await expect.poll(() => firing.innerText(), { timeout: 30_000 }).toMatch(/alerts? firing[\s\S]*signing key age/i);
    await firing.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Streaming & alerts' }).waitFor();
    expect(log.problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('is lazy-loaded: the page is its own chunk, outside the first screen (< 150 KB gzip)', () => {
    const assets = path.join(DIST, 'assets');
    const files = readdirSync(assets).filter((f) => f.endsWith('.js'));
    const page = files.filter((f) => readFileSync(path.join(assets, f), 'utf8').includes('Streaming & alerts'));
    const chunk = files.filter((f) => readFileSync(path.join(assets, f), 'utf8').includes('caught up'));
    expect(chunk).toHaveLength(1);
    const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
    expect(html).not.toContain(chunk[0]);
    const first = [...html.matchAll(/assets\/([^"]+\.js)/g)].map((m) => m[1]!);
    const firstBytes = first.reduce((n, f) => n + gzipSync(readFileSync(path.join(assets, f))).length, 0);
    expect(firstBytes).toBeLessThan(150 * 1024);
    expect(page.length).toBeGreaterThan(0);
  });
});
