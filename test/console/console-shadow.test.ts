// Shadow releases in the console, in headless Chromium against the real API and PostgreSQL (issue 27): an admin starts
// a shadow release from the releases page (no acknowledgement asked), its page shows the shadow report — totals, by
// hook, by endpoint, by tool command, samples — with drill-down to the hook-run explorer filtered by the release and
// to the sample run; promote asks for the impact preview's acknowledgement, then lands on the staged release; abort
// asks for confirmation. An auditor reads the report with no control. No console error on any page.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import {
  auditorToken as makeAuditor,
  createEndpoints,
  ingestRecords,
  shadowDeniedEvent,
  type TestEndpoint,
} from '../support/audit-factories';
import { launchBrowser, type TestBrowser, watchProblems, consolePages } from '../support/browser';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);
const MANAGED = '/opt/hw-console-shadow';
const FILES = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n' }];

let api: TestApi;
let browser: TestBrowser;
let auditor: string;
let groupId: string;
let ep: TestEndpoint;
let strict: { versionId: string; number: number };
let lenient: { versionId: string; number: number };

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
  await fs.mkdir(SHOTS, { recursive: true });
  let policyId: string;
  ({ groupId, policyId } = await createGroupWithPolicy(api, `shadow-console-${process.pid}`));
  lenient = await createVersion(api, policyId, requirementsToml(MANAGED, 'lenient'), FILES);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: lenient.versionId })).status).toBe(
    201,
  );
  // allow_managed_hooks_only to an endpoint without an inventory: promoting it needs the acknowledgement.
  strict = await createVersion(
    api,
    policyId,
    `allow_managed_hooks_only = true\n\n${requirementsToml(MANAGED, 'strict')}`,
    FILES,
  );
  ep = (await createEndpoints(api.db.url, 1, groupId))[0]!;
  auditor = await makeAuditor(api);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

// Signs in with a token; opens a console path and waits for its main heading.
const { signIn, open } = consolePages(() => api.baseUrl);

// The number a totals entry of the report shows.
const total = (page: Page, category: string) =>
  page.locator(`[data-testid="shadow-totals"] td[data-category="${category}"]`).innerText();

let shadowId = '';

describe('console: shadow releases', () => {
  it('admin: starts a shadow release, reads its report with drill-down, promotes it with the acknowledgement', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, api.adminToken);
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByLabel('Version').selectOption({ label: `v${strict.number}` });
    await page.getByLabel(/Shadow: beside what the group enforces/).check();
    await page.getByLabel('Rings (cumulative %)').fill('100');
    // No acknowledgement here: a shadow release enforces nothing.
    await page.getByTestId('shadow-note').waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await page.getByRole('button', { name: 'Start shadow release' }).click();
    await page.getByRole('heading', { level: 1, name: /Shadow release · revision 2/ }).waitFor();
    shadowId = page.url().split('/releases/')[1]!;
    expect((await admin('GET', `/v1/releases/${shadowId}`)).body).toMatchObject({ strategy: 'shadow', rings: [100] });
    await page.getByText('Observe mode: its hooks run beside').waitFor();
    await page.getByText(/No event yet/).waitFor();

    // Runs arrive: the report counts them (polled), by endpoint and with samples.
    await ingestRecords(api, ep, [...shadowDeniedEvent(1, shadowId), ...shadowDeniedEvent(3, shadowId)]);
    await expect.poll(() => total(page, 'wouldNewlyDeny'), { timeout: 15_000 }).toBe('2');
    expect(await total(page, 'wouldStopDenying')).toBe('0');
    const byEndpoint = page.locator('[data-testid="shadow-by-endpoint"] tbody tr');
    expect(await byEndpoint.count()).toBe(1);
    expect(await byEndpoint.first().innerText()).toMatch(/runs\s+2\s+0\s+0\s+0\s+0$/);
    expect(await page.locator('[data-testid="shadow-by-hook"] tbody tr').first().innerText()).toContain(
      '/etc/zerotwo/shadow/requirements.toml:pre_tool_use:0:0',
    );
    expect(await page.locator('[data-testid="shadow-samples"] tbody tr').count()).toBe(2);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'shadow-report.png'), fullPage: true });

    // The endpoint's page names the shadow release its agent reports on disk.
    const digest = (await admin('GET', `/v1/releases/${shadowId}`)).body.digest as string;
    const reported = await call(api.baseUrl, 'POST', '/v1/agent/status', {
      token: ep.credential,
      body: {
        state: 'pending',
        appliedRevision: null,
        appliedDigest: null,
        targetRevision: null,
        shadow: { releaseId: shadowId, revision: 2, digest, error: null },
      },
    });
    expect(reported.status).toBe(200);
    await open(page, `/endpoints/${ep.id}`, /Endpoint · /);
    await page.getByTestId('endpoint-shadow').getByRole('link', { name: 'shadow release, revision 2' }).click();
    await page.getByRole('heading', { level: 1, name: /Shadow release · revision 2/ }).waitFor();

    // Drill-down: the sample's shadow run, then every shadow run of the release in the explorer.
    const sample = page.getByTestId('sample-run').first();
    const runId = (await sample.getAttribute('href'))!.split('/hook-runs/')[1]!.split('?')[0]!;
    await sample.click();
    await page.waitForURL(new RegExp(`/console/hook-runs/${runId}\\?endpointId=${ep.id}$`));
    await page.getByText(shadowId).first().waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'All its shadow runs' }).click();
    await page.waitForURL(new RegExp(`/console/hook-runs\\?shadowReleaseId=${shadowId}$`));
    expect(await page.getByLabel('Shadow release', { exact: true }).inputValue()).toBe(shadowId);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);

    // Promote: the impact needs the acknowledgement; then the staged release of the same version.
    await open(page, `/releases/${shadowId}`, /Shadow release/);
    const promote = page.getByRole('button', { name: 'Promote', exact: true });
    await page.getByTestId('release-preview').waitFor();
    await expect.poll(() => promote.isDisabled()).toBe(true);
    await page.getByLabel(/has an unknown impact on 1 endpoint without a recent inventory\.$/).check();
    await expect.poll(() => promote.isEnabled()).toBe(true);
    await promote.click();
    const dialog = page.getByRole('dialog', { name: 'Promote this shadow release?' });
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await page.getByRole('heading', { level: 1, name: /^Release · revision 3/ }).waitFor();
    await page.getByText('Promoted from').waitFor();
    const promoted = (await admin('GET', `/v1/releases/${shadowId}`)).body;
    expect(promoted).toMatchObject({ status: 'promoted' });
    expect((await admin('GET', `/v1/releases/${promoted.promotedReleaseId}`)).body).toMatchObject({
      strategy: 'staged',
      policyVersionId: strict.versionId,
      promotedFromId: shadowId,
    });
    // The promoted shadow release keeps its report, with no control left.
    await open(page, `/releases/${shadowId}`, /Shadow release/);
    await expect.poll(() => total(page, 'wouldNewlyDeny')).toBe('2');
    expect(await page.getByRole('button', { name: /Promote|Abort/ }).count()).toBe(0);
    expect(log.problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('admin: aborting a shadow release asks first', async () => {
    // The staged release from the promotion must finish before another enforced change; a shadow one may start now.
    const second = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: lenient.versionId,
      strategy: 'shadow',
      rings: [100],
    });
    expect(second.status).toBe(201);
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, api.adminToken);
    await open(page, `/releases/${second.body.id}`, /Shadow release/);
    await page.getByRole('button', { name: 'Abort', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Abort this shadow release?' });
    await dialog.getByText('Its shadow layer is removed from every endpoint').waitFor();
    await dialog.getByRole('button', { name: 'Abort shadow release' }).click();
    await expect.poll(async () => (await admin('GET', `/v1/releases/${second.body.id}`)).body.status).toBe('aborted');
    await page.locator('.badge', { hasText: 'aborted' }).first().waitFor();
    expect(log.problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('auditor: reads the report, no promote or abort', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, auditor);
    await open(page, `/releases/${shadowId}`, /Shadow release/);
    await expect.poll(() => total(page, 'wouldNewlyDeny')).toBe('2');
    expect(await page.locator('[data-write]').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Promote|Abort|Pause/ }).count()).toBe(0);
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByRole('link', { name: 'Revision 2' }).waitFor();
    expect(await page.getByRole('button', { name: /start/i }).count()).toBe(0);
    expect(log.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
