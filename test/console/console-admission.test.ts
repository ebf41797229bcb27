// The console's enrollment decisions in headless Chromium against the real API, PostgreSQL and Redis: the Overview
// lists duplicate machine ids among its findings and counts them as pending approval, not as fleet; the Groups &
// endpoints page lists them prominently with the endpoint each duplicates; an admin approves one (its original is
// retired and its credential refused), rejects another, re-admits a revoked endpoint and creates a use-limited
// enrollment secret, each behind a confirmation; an auditor sees it all with no decision control.
// Pending duplicates are inserted as an enrollment without key proof leaves them (test/support/admission.ts).
// No console error on any page. Screenshots go to CONSOLE_SCREENSHOTS (default .hookwarden/console-screenshots).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPendingDuplicate, type PendingDuplicate } from '../support/admission';
import { enrollWithKey, type SignedAgent } from '../support/identity';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type TestBrowser, watchProblems, consolePages } from '../support/browser';
import { call } from '../support/http';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);

let api: TestApi;
let browser: TestBrowser;
let auditorToken: string;
let small: { id: string; secret: string };
let large: { id: string; secret: string };
/** Enrolled endpoints: `a` is duplicated (then retired), `c` duplicated (kept), `b` revoked. */
const ep: Record<'a' | 'b' | 'c', { id: string; credential: SignedAgent; hostname: string }> = {} as never;
let p1: PendingDuplicate;
let p2: PendingDuplicate;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

// A group with an enrollment secret.
async function group(name: string) {
  const g = await admin('POST', '/v1/groups', { name });
  const s = await admin('POST', `/v1/groups/${g.body.id}/enrollment-secrets`, { name: 'laptops' });
  return { id: g.body.id as string, secret: s.body.secret as string };
}

// Enrolls a machine through the real route.
async function enroll(secret: string, hostname: string) {
  const { res, agent } = await enrollWithKey(api.baseUrl, secret, {
    hostname,
    machineId: `console-adm-${hostname}-${process.pid}`,
  });
  expect(res.status).toBe(201);
  return { id: res.body.endpointId as string, credential: agent!, hostname };
}

const agentBundle = (agent: SignedAgent) => agent.call('GET', '/v1/agent/bundle');

beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
  await fs.mkdir(SHOTS, { recursive: true });
  small = await group('design');
  large = await group('contractors');
  ep.a = await enroll(small.secret, 'ana-laptop');
  ep.b = await enroll(small.secret, 'ben-desktop');
  ep.c = await enroll(small.secret, 'cy-laptop');
  expect((await admin('POST', `/v1/endpoints/${ep.b.id}/revoke`)).status).toBe(200);
  p1 = await insertPendingDuplicate(api.db.url, ep.a.id, { groupId: large.id, hostname: 'ana-laptop-new' });
  p2 = await insertPendingDuplicate(api.db.url, ep.c.id, { groupId: large.id, hostname: 'intruder' });
  const aud = await admin('POST', '/v1/tokens', { name: 'Ada Auditor', role: 'auditor' });
  auditorToken = aud.body.token;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

// Saves a full-page screenshot of the current page.
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

// Signs in with a token; opens a console path and waits for its main heading.
const { signIn, open } = consolePages(() => api.baseUrl);

const pendingRow = (page: Page, id: string) => page.locator(`[data-testid="pending-endpoints"] tr[data-id="${id}"]`);

describe('console enrollment decisions', () => {
  it('admin: duplicates in the Overview, approve and reject on Groups & endpoints, re-admit, limited secret', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, api.adminToken);

    // Overview: the duplicates are open findings and "pending approval", not part of the fleet's groups.
    const stats = page.getByRole('list', { name: 'Endpoints by state' });
    await expect.poll(() => stats.innerText()).toMatch(/2\s+pending approval/);
    expect(await stats.innerText()).toMatch(/1\s+revoked/);
    const design = page.locator('tr', { has: page.getByRole('link', { name: 'design', exact: true }) });
    await expect.poll(() => design.innerText()).toMatch(/^design\s+2\s/);
    // A group whose only endpoints await approval is listed with no live endpoints (groups without any are shown).
    const contractors = page.locator('tr', { has: page.getByRole('link', { name: 'contractors', exact: true }) });
    await expect.poll(() => contractors.innerText()).toMatch(/^contractors\s+0\s+no endpoints/);
    const finding = page.locator('tr', { hasText: `ana-laptop-new duplicates ${ep.a.id.slice(0, 8)}` });
    await expect.poll(() => finding.innerText()).toMatch(/duplicate machine id/);
    await shot(page, 'admission-overview');
    await finding.getByRole('link', { name: 'Pending approval' }).click();
    await page.getByRole('heading', { level: 1, name: 'Groups & endpoints' }).waitFor();

    // The pending list: each new enrollment with its group and the endpoint it duplicates.
    const card = page.getByRole('region', { name: /^Pending approval/ });
    await expect.poll(() => card.getByRole('heading').first().innerText()).toBe('Pending approval (2)');
    const row1 = pendingRow(page, p1.id);
    expect(await row1.innerText()).toMatch(/^ana-laptop-new linux\s+contractors\s+.+\s+ana-laptop in design\s+never/);
    // Groups count live endpoints only: design has a and c (b is revoked), contractors none.
    const groupRow = (name: string) =>
      page.locator('tr', { has: page.getByRole('link', { name, exact: true }) }).last();
    await expect.poll(() => groupRow('design').innerText()).toMatch(/^design\s+—\s+2\s/);
    expect(await groupRow('contractors').innerText()).toMatch(/^contractors\s+—\s+0\s/);
    await shot(page, 'admission-pending');

    // Approve behind its confirmation: the duplicated endpoint is named; cancelling changes nothing.
    await row1.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.innerText()).toMatch(/ana-laptop \(group design, last seen never\) is retired/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await admin('GET', `/v1/endpoints/${p1.id}`)).body.admission).toBe('pending');
    await row1.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await row1.waitFor({ state: 'detached' });
    expect((await admin('GET', `/v1/endpoints/${p1.id}`)).body.admission).toBe('active');
    expect((await admin('GET', `/v1/endpoints/${ep.a.id}`)).body.admission).toBe('retired');
    expect((await agentBundle(ep.a.credential)).status).toBe(401);

    // Reject the other: the list is gone once nothing is pending.
    await pendingRow(page, p2.id).getByRole('button', { name: 'Reject' }).click();
    expect(await page.getByRole('dialog').innerText()).toMatch(
      /intruder never gets a working credential[\s\S]*cy-laptop stays/,
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await admin('GET', `/v1/endpoints/${p2.id}`)).body.admission).toBe('rejected');
    expect((await agentBundle(ep.c.credential)).status).toBe(204);

    // The retired endpoint's page: its admission, no action; the approved one names what it replaced.
    await open(page, `/endpoints/${ep.a.id}`, 'Endpoint · ana-laptop');
    const facts = page.getByRole('region', { name: 'State' });
    await expect.poll(() => facts.innerText()).toMatch(/Admission\s+retired/);
    expect(await page.locator('[data-write]').count()).toBe(0);
    await open(page, `/endpoints/${p1.id}`, 'Endpoint · ana-laptop-new');
    await expect.poll(() => facts.innerText()).toMatch(/Admission\s+active\s+duplicate of ana-laptop \(retired\)/);
    expect(await page.getByRole('region', { name: 'Machine' }).innerText()).toMatch(/Endpoint key\s+legacy credential/);

    // Re-admit the revoked endpoint from its page.
    await open(page, `/endpoints/${ep.b.id}`, 'Endpoint · ben-desktop');
    await expect.poll(() => facts.innerText()).toMatch(/State\s+revoked[\s\S]*Admission\s+active/);
    expect(await page.getByRole('button', { name: 'Revoke endpoint' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Re-admit' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Re-admit' }).click();
    await page.getByRole('button', { name: 'Revoke endpoint' }).waitFor();
    expect((await admin('GET', `/v1/endpoints/${ep.b.id}`)).body.revokedAt).toBeNull();
    expect((await agentBundle(ep.b.credential)).status).toBe(204);
    await shot(page, 'admission-endpoint');

    // The group's endpoint list filters by admission.
    await open(page, `/groups/${large.id}?admission=rejected`, 'Group · contractors');
    const rows = page.getByRole('region', { name: 'Endpoints' }).locator('tbody tr');
    await expect.poll(() => rows.allInnerTexts()).toEqual([expect.stringMatching(/^intruder\s+rejected/)]);

    // An enrollment secret with a use limit and an expiry, shown with its uses.
    await open(page, `/groups/${small.id}`, 'Group · design');
    await page.getByText('New enrollment secret').click();
    await page.getByLabel('Name').fill('five-laptops');
    await page.getByLabel('Expires').fill('2099-01-31T12:00');
    await page.getByLabel('Use limit').fill('5');
    await page.getByRole('button', { name: 'Create secret' }).click();
    await page.getByTestId('new-secret').waitFor();
    const secretRow = page.locator('tr', { hasText: 'five-laptops' });
    await expect.poll(() => secretRow.innerText()).toMatch(/five-laptops\s+\S+\s+0 \/ 5\s+.*2099.*\s+active/);
    const listed = (await admin('GET', `/v1/groups/${small.id}/enrollment-secrets`)).body.items;
    expect(listed.find((s: any) => s.name === 'five-laptops')).toMatchObject({ maxUses: 5, uses: 0 });

    expect(log.problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('auditor: pending enrollments and admission states readable, no decision control', async () => {
    const p3 = await insertPendingDuplicate(api.db.url, ep.c.id, { hostname: 'cy-laptop-2' });
    expect((await admin('POST', `/v1/endpoints/${ep.c.id}/revoke`)).status).toBe(200);
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, auditorToken);
    await open(page, '/groups', 'Groups & endpoints');
    await expect.poll(() => pendingRow(page, p3.id).innerText()).toMatch(/^cy-laptop-2 linux\s+design/);
    expect(await page.locator('[data-write]').count()).toBe(0);
    expect(await page.getByRole('button', { name: /approve|reject/i }).count()).toBe(0);
    await open(page, `/endpoints/${ep.c.id}`, 'Endpoint · cy-laptop');
    await expect.poll(() => page.getByRole('region', { name: 'State' }).innerText()).toMatch(/State\s+revoked/);
    expect(await page.getByRole('button', { name: /re-admit|revoke/i }).count()).toBe(0);
    await open(page, `/endpoints/${p3.id}`, 'Endpoint · cy-laptop-2');
    await expect
      .poll(() => page.getByRole('region', { name: 'State' }).innerText())
      .toMatch(/Admission\s+pending\s+duplicate of cy-laptop \(active, revoked\)/);
    expect(await page.locator('[data-write]').count()).toBe(0);
    expect(log.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
