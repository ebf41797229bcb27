// The fleet console in headless Chromium on a seeded fleet (2,000 endpoints, 100,000 hook runs): the overview leads
// with what needs attention; every count on it drills down to the endpoints view or the explorer showing exactly that
// many rows; the endpoints view sorts and filters by the API, ticks "last seen" live, moves and revokes in bulk after
// a confirmation (admin); the global search opens with `/`; saved views are personal or shared by admins; the
// auditor sees it all read-only; dark mode follows the system; no serious or critical axe-core violation on any page.
// Screenshots go to CONSOLE_SCREENSHOTS (default .hookwarden/console-screenshots; committed ones in docs/console).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type ProblemLog, type TestBrowser, watchProblems } from '../support/browser';
import { type FleetSeed, seedFleet } from '../support/fleet';
import { call } from '../support/http';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);

let api: TestApi;
let browser: TestBrowser;
let seed: FleetSeed;
let db: pg.Client;
let auditorToken: string;

beforeAll(async () => {
  api = await startTestApi();
  seed = await seedFleet(api.baseUrl, api.adminToken, api.db.url, { endpoints: 2000, runs: 100_000 });
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  browser = await launchBrowser();
  await fs.mkdir(SHOTS, { recursive: true });
  auditorToken = (
    await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'Avery Auditor', role: 'auditor' },
    })
  ).body.token;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await db?.end();
  await api?.close();
});

// Saves a screenshot of the current page (the first screen) for the docs.
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

// Signs in with a token on a new page.
async function signIn(token: string): Promise<{ page: Page; log: ProblemLog }> {
  const page = await browser.context.newPage();
  const log = watchProblems(page);
  await page.goto(`${api.baseUrl}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return { page, log };
}

// Opens a console path in the same tab (its session stays) and waits for its main heading.
async function open(page: Page, p: string, heading: RegExp | string): Promise<void> {
  await page.goto(`${api.baseUrl}/console${p}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

// The number of endpoints the endpoints view says match (its table card's title).
async function endpointsTotal(page: Page): Promise<number> {
  const title = page.getByRole('heading', { level: 2, name: /^\d+ endpoints?$/ });
  await title.waitFor();
  return Number((await title.innerText()).split(' ')[0]);
}

// The number of runs the explorer says match.
async function runsTotal(page: Page): Promise<number> {
  const title = page.getByRole('heading', { level: 2, name: /^\d+ matching runs?( in the last 24 h)?$/ });
  await title.waitFor();
  return Number((await title.innerText()).split(' ')[0]);
}

/** The axe-core rules whose outcome a colour scheme can change. */
const DARK_RULES = ['color-contrast', 'link-in-text-block'];

// Serious and critical axe-core violations of the current page, as "rule: target" lines. In the dark scheme only the
// rules that depend on colours run: the page's structure is the light scheme's, already checked (every rule on 56
// page views took 7 minutes of the suite on a loaded machine).
async function axeProblems(page: Page, scheme: 'light' | 'dark'): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  if (scheme === 'dark') builder.withRules(DARK_RULES);
  const res = await builder.analyze();
  return res.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')} — ${v.help}`));
}

const sqlCount = async (sql: string, params: unknown[] = []): Promise<number> =>
  (await db.query(sql, params)).rows[0].n;

describe('fleet console', () => {
  it('admin: the overview leads with what needs attention, and every count drills down to that many rows', async () => {
    const { page, log } = await signIn(api.adminToken);
    const first = page.getByRole('heading', { level: 2 }).first();
    expect(await first.innerText()).toBe('Needs attention');
    // Failed, stale and never-seen endpoints by name; the paused rollout with its reason, group and policy.
    const failed = page.getByTestId('attention-failed');
    await failed
      .getByRole('link', { name: /^dev-|^build-agent-/ })
      .first()
      .waitFor();
    await page
      .getByTestId('attention-never-checked-in')
      .getByRole('link', { name: /^dev-\d{4}$/ })
      .first()
      .waitFor();
    await page.getByText(seed.pausedReason).first().waitFor();
    await page.getByRole('link', { name: 'Paused: alpha-baseline v2 → fleet-alpha' }).waitFor();
    await page.getByRole('link', { name: /beta-guardrails v1 → fleet-beta · revision 1/ }).waitFor();
    // Groups without endpoints are listed.
    const emptyRow = page.getByRole('row', { name: /fleet-empty/ });
    await emptyRow.getByText('no endpoints').waitFor();
    await shot(page, 'overview-attention');

    // States outside the fleet show only when some endpoint is in one (the API's per-state membership): the seed has
    // pending approvals and revoked endpoints, no rejected or retired ones.
    const byState = page.getByRole('list', { name: 'Endpoints by state' });
    await byState.getByRole('link', { name: /^\d+ pending approval$/ }).waitFor();
    expect(await byState.getByRole('link', { name: /^\d+ (rejected|retired)$/ }).count()).toBe(0);

    // Every state count and every group/version count lands on that many endpoints.
    const targets: Array<{ name: string; locate: () => ReturnType<Page['getByRole']> }> = [];
    for (const s of ['applied', 'failed', 'drifted', 'stale', 'never checked in', 'pending', 'revoked']) {
      targets.push({
        name: `state ${s}`,
        locate: () =>
          page.getByRole('list', { name: 'Endpoints by state' }).getByRole('link', { name: new RegExp(`^\\d+ ${s}$`) }),
      });
    }
    for (const g of ['fleet-alpha', 'fleet-beta', 'fleet-gamma']) {
      targets.push({
        name: `${g} total`,
        locate: () =>
          page
            .getByRole('row', { name: new RegExp(`^${g}`) })
            .getByRole('link')
            .nth(1),
      });
      targets.push({
        name: `${g} first version`,
        locate: () =>
          page
            .getByRole('row', { name: new RegExp(`^${g}`) })
            .getByRole('link')
            .nth(2),
      });
    }
    targets.push({
      name: 'attention failed',
      locate: () => page.getByTestId('attention-failed').getByRole('link').first(),
    });
    targets.push({
      name: 'attention stale',
      locate: () => page.getByTestId('attention-stale').getByRole('link').first(),
    });
    for (const t of targets) {
      await open(page, '/', 'Overview');
      const link = t.locate();
      await link.waitFor();
      // The count: a version chip's bold number ("v1 735"), else the link's first number ("12 failed").
      const strong = link.locator('strong');
      const text = (await strong.count()) ? await strong.innerText() : await link.innerText();
      const n = Number(/\d+/.exec(text)![0]);
      await link.click();
      await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
      expect(await endpointsTotal(page), t.name).toBe(n);
    }

    // Chart counts: each bucket's count (and one series' count) lands on that many runs in the explorer.
    await open(page, '/', 'Overview');
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.getByText('Counts per day').click();
    const table = page.getByTestId('bucket-table');
    const cells = table.getByRole('link');
    await cells.first().waitFor();
    const picks = [0, 1, (await cells.count()) - 1];
    for (const i of picks) {
      await open(page, '/', 'Overview');
      await page.getByRole('button', { name: 'Last 7 days' }).click();
      await page.getByText('Counts per day').click();
      const cell = page.getByTestId('bucket-table').getByRole('link').nth(i);
      const n = Number(await cell.innerText());
      await cell.click();
      await page.getByRole('heading', { level: 1, name: 'Hook runs' }).waitFor();
      expect(await runsTotal(page), `bucket cell ${i}`).toBe(n);
    }
    // The chart's total, and the top failing hook's count.
    await open(page, '/', 'Overview');
    const totalLink = page.getByTestId('runs-total');
    const total = Number((await totalLink.innerText()).split(' ')[0]);
    await totalLink.click();
    expect(await runsTotal(page)).toBe(total);
    await open(page, '/', 'Overview');
    const top = page
      .getByRole('region', { name: 'Top failing hooks (7 d)' })
      .getByRole('row')
      .nth(1)
      .getByRole('link')
      .nth(1);
    const topN = Number(await top.innerText());
    await top.click();
    expect(await runsTotal(page)).toBe(topN);
    // Clicking a bar opens its bucket; dragging across the chart selects a time range (the URL holds it).
    await open(page, '/', 'Overview');
    const over = page.locator('.u-over').first();
    await over.waitFor();
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 8 });
    await page.mouse.up();
    await page.getByRole('heading', { level: 1, name: 'Hook runs' }).waitFor();
    const url = new URL(page.url());
    const from = Date.parse(url.searchParams.get('from')!);
    const to = Date.parse(url.searchParams.get('to')!);
    expect(to - from).toBeGreaterThan(3 * 3600_000);
    expect(await runsTotal(page)).toBe(
      await sqlCount('SELECT count(*)::int AS n FROM hook_runs WHERE started_at >= $1 AND started_at < $2', [
        new Date(from).toISOString(),
        new Date(to).toISOString(),
      ]),
    );
    expect(log.problems).toEqual([]);
  }, 300_000);

  it('admin: endpoints view sorts and filters server-side, ticks live, moves and revokes in bulk with confirmation', async () => {
    const { page, log } = await signIn(api.adminToken);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'All endpoints' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
    expect(await endpointsTotal(page)).toBe(2000);
    const table = page.getByTestId('fleet-endpoints');
    const firstCell = async (col: number) => table.getByRole('row').nth(1).getByRole('cell').nth(col).innerText();
    // Sort by hostname descending (header button, by keyboard).
    // Hostname is the default sort (ascending): Enter on its header reverses it.
    expect(await firstCell(1)).toBe('build-agent-0050');
    await table.getByRole('button', { name: /Hostname/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/sort=hostname&order=desc/);
    await expect.poll(() => firstCell(1)).toBe('dev-1999');
    // Sort by open findings descending: the first row has the most.
    await table.getByRole('button', { name: 'Findings' }).click();
    await table.getByRole('button', { name: /Findings/ }).click();
    await page.waitForURL(/sort=openFindings&order=desc/);
    await expect.poll(() => firstCell(8)).toBe('2');
    // Filter: failed, linux.
    await page.getByLabel('State').selectOption('failed');
    await page.getByLabel('Platform').selectOption('linux');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/state=failed/);
    const failedLinux = (
      await call(api.baseUrl, 'GET', '/v1/fleet/endpoints?state=failed&platform=linux&limit=1', {
        token: api.adminToken,
      })
    ).body.total;
    await expect.poll(() => endpointsTotal(page)).toBe(failedLinux);
    // Save the view, leave, come back through it.
    await page.getByLabel('Name of this view').fill('Failed linux');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('region', { name: 'Saved views' }).getByRole('link', { name: 'Failed linux' }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => endpointsTotal(page)).toBe(2000);
    await page.getByRole('link', { name: 'Failed linux' }).click();
    await expect.poll(() => endpointsTotal(page)).toBe(failedLinux);
    expect(await page.getByLabel('State').inputValue()).toBe('failed');

    // "Last seen" ticks without a reload. The most recently seen endpoint is made seen just now (whatever time the
    // test took to get here), so its cell counts seconds, which change while we watch.
    await db.query(
      'UPDATE endpoints SET last_seen_at = now() WHERE id = (SELECT id FROM endpoints ORDER BY last_seen_at DESC NULLS LAST LIMIT 1)',
    );
    await page.getByRole('button', { name: 'Clear' }).click();
    await table.getByRole('button', { name: 'Last seen' }).click();
    await table.getByRole('button', { name: /Last seen/ }).click();
    await page.waitForURL(/sort=lastSeenAt&order=desc/);
    const seen = table.getByRole('row').nth(1).getByRole('cell').nth(7);
    await expect.poll(() => seen.innerText(), { timeout: 15_000 }).toMatch(/^\d+ s ago$/);
    const before = await seen.innerText();
    await expect.poll(() => seen.innerText(), { timeout: 15_000 }).not.toBe(before);
    await shot(page, 'endpoints');

    // Bulk move three gamma endpoints to the empty group, with confirmation.
    await page.goto(`${api.baseUrl}/console/endpoints?groupId=${seed.groups.gamma}`);
    await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
    const names: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const row = table.getByRole('row').nth(i);
      names.push(await row.getByRole('cell').nth(1).innerText());
      await row.getByRole('checkbox').check();
    }
    expect(await page.getByTestId('selected-count').innerText()).toBe('3 selected');
    await page.getByLabel('Move to group').selectOption({ label: 'fleet-empty' });
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Move 3 endpoints to fleet-empty?' });
    await dialog.waitFor();
    await shot(page, 'endpoints-bulk-move');
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect
      .poll(() =>
        sqlCount(
          `SELECT count(*)::int AS n FROM endpoints e JOIN groups g ON g.id = e.group_id
            WHERE g.name = 'fleet-empty' AND e.hostname = ANY($1::text[])`,
          [names],
        ),
      )
      .toBe(3);
    expect(
      await sqlCount(
        `SELECT count(*)::int AS n FROM audit_log a JOIN endpoints e ON e.id::text = a.target_id
          WHERE a.action = 'endpoint.move' AND e.hostname = ANY($1::text[])`,
        [names],
      ),
    ).toBe(3);
    // Revoke two of them; cancelling first changes nothing.
    await page.goto(`${api.baseUrl}/console/endpoints?groupId=${seed.groups.empty}`);
    await expect.poll(() => endpointsTotal(page)).toBe(3);
    await table.getByRole('row').nth(1).getByRole('checkbox').check();
    await table.getByRole('row').nth(2).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke 2 endpoints?' });
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    expect(
      await sqlCount(`SELECT count(*)::int AS n FROM endpoints WHERE group_id = $1 AND revoked_at IS NOT NULL`, [
        seed.groups.empty,
      ]),
    ).toBe(0);
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await revoke.waitFor({ state: 'hidden' });
    await expect
      .poll(() =>
        sqlCount(`SELECT count(*)::int AS n FROM endpoints WHERE group_id = $1 AND revoked_at IS NOT NULL`, [
          seed.groups.empty,
        ]),
      )
      .toBe(2);
    expect(
      await sqlCount(
        `SELECT count(*)::int AS n FROM audit_log a JOIN endpoints e ON e.id::text = a.target_id
          WHERE a.action = 'endpoint.revoke' AND e.group_id = $1`,
        [seed.groups.empty],
      ),
    ).toBe(2);
    expect(log.problems).toEqual([]);
  }, 300_000);

  it('admin: the global search opens with / and groups what it finds by kind; a shared saved view', async () => {
    const { page, log } = await signIn(api.adminToken);
    await page.keyboard.press('/');
    const box = page.getByRole('searchbox', { name: 'Search everything' });
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('global-search');
    await box.fill('check-7.py');
    const results = page.locator('#search-results');
    await results.getByRole('heading', { name: 'Hooks' }).waitFor();
    await box.fill('alpha');
    await results.getByRole('heading', { name: 'Policies' }).waitFor();
    await results.getByRole('heading', { name: 'Groups' }).waitFor();
    await shot(page, 'search');
    await box.fill('build-agent-0100');
    await results.getByRole('link', { name: 'build-agent-0100' }).click();
    await page.getByRole('heading', { level: 1, name: /build-agent-0100/ }).waitFor();
    // Ctrl+K from anywhere, then arrow keys into the results.
    await page.keyboard.press('Control+k');
    await box.fill(seed.releases.alphaPaused);
    await results.getByRole('link', { name: 'fleet-alpha r2' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/releases/${seed.releases.alphaPaused}$`));

    // A shared explorer view: pick lists for decision and status; everyone sees it.
    const since = new Date(Date.now() - 8 * 86400_000).toISOString();
    await open(page, `/hook-runs?from=${since}`, 'Hook runs');
    await page.getByRole('group', { name: 'Decision' }).getByLabel('deny').check();
    await page.getByRole('group', { name: 'Status' }).getByLabel('ran').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/decision=deny&status=ran/);
    expect(new URL(page.url()).searchParams.get('from')).toBe(since);
    const n = await runsTotal(page);
    expect(n).toBe(
      await sqlCount(`SELECT count(*)::int AS n FROM hook_runs WHERE decision = 'deny' AND status = 'ran'`),
    );
    await page.getByLabel('Name of this view').fill('Denied runs');
    await page.getByLabel('shared').check();
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('region', { name: 'Saved views' }).locator('.chip', { hasText: 'shared' }).waitFor();
    await shot(page, 'hook-runs-saved-view');
    expect(log.problems).toEqual([]);
  }, 120_000);

  it('auditor: read-only endpoints view, shared and personal views, the editor route has its heading', async () => {
    const { page, log } = await signIn(auditorToken);
    await open(page, '/endpoints', 'Endpoints');
    expect(await endpointsTotal(page)).toBeGreaterThan(1900);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.locator('[data-write]').count()).toBe(0);
    await page
      .getByRole('link', { name: 'Failed linux' })
      .waitFor({ state: 'detached', timeout: 1000 })
      .catch(() => undefined);
    expect(await page.getByRole('link', { name: 'Failed linux' }).count()).toBe(0); // the admin's own view
    await page.getByLabel('Name of this view').fill('My stale');
    expect(await page.getByLabel('shared').count()).toBe(0);
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('link', { name: 'My stale' }).waitFor();
    await open(page, '/hook-runs', 'Hook runs');
    await page.getByRole('link', { name: 'Denied runs' }).click();
    await page.waitForURL(/decision=deny/);
    expect(await runsTotal(page)).toBe(
      await sqlCount(`SELECT count(*)::int AS n FROM hook_runs WHERE decision = 'deny' AND status = 'ran'`),
    );
    expect(await page.getByRole('button', { name: /Delete saved view Denied runs/ }).count()).toBe(0);
    // The overview's drill-down works the same for the auditor.
    await open(page, '/', 'Overview');
    const stale = page.getByTestId('attention-stale').getByRole('link').first();
    const n = Number(/\d+/.exec(await stale.innerText())![0]);
    await stale.click();
    expect(await endpointsTotal(page)).toBe(n);
    await shot(page, 'auditor-endpoints');
    await open(page, `/policies/${seed.policies.alpha}/new`, 'New version');
    expect(log.problems).toEqual([]);
  }, 120_000);

  it('fits 1280 px, follows the dark color scheme, and no page has a serious or critical axe-core violation', async () => {
    const endpointId = (
      await call(api.baseUrl, 'GET', '/v1/fleet/endpoints?limit=1&hasFindings=true', { token: api.adminToken })
    ).body.items[0].id;
    const pages: Array<[string, string | RegExp]> = [
      ['/', 'Overview'],
      ['/endpoints', 'Endpoints'],
      [`/endpoints?state=failed&sort=lastSeenAt&order=desc`, 'Endpoints'],
      ['/groups', 'Groups & endpoints'],
      [`/groups/${seed.groups.alpha}`, 'fleet-alpha'],
      [`/endpoints/${endpointId}`, /dev-|build-agent-/],
      ['/policies', 'Policies'],
      [`/policies/${seed.policies.alpha}`, 'alpha-baseline'],
      [`/policies/${seed.policies.alpha}/new`, /New version/],
      ['/releases', 'Releases'],
      [`/releases/${seed.releases.alphaPaused}`, /Release|Rollout|revision/i],
      ['/hook-runs', 'Hook runs'],
      ['/inventory', 'Inventory'],
      ['/audit', 'Audit log'],
    ];
    const problems: string[] = [];
    for (const [token, who] of [
      [api.adminToken, 'admin'],
      [auditorToken, 'auditor'],
    ] as const) {
      const { page } = await signIn(token);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [p, heading] of pages) {
          await open(page, p, heading);
          // Every card has loaded (no "Loading…" left).
          await expect.poll(() => page.locator('.loading').count(), { timeout: 15_000 }).toBe(0);
          // Nothing runs off the right edge at 1280 px (wide tables scroll inside their card).
          const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
          if (overflow > 0) problems.push(`${who} ${scheme} ${p}: page ${overflow}px wider than the window`);
          for (const v of await axeProblems(page, scheme)) problems.push(`${who} ${scheme} ${p}: ${v}`);
        }
      }
      await open(page, '/', 'Overview');
      const bg = await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
      const [r, g, b] = bg.match(/\d+/g)!.map(Number);
      expect(r! + g! + b!, 'dark background').toBeLessThan(120);
      await shot(page, `${who}-dark-overview`.replace('admin-', ''));
      await page.close();
    }
    expect(problems).toEqual([]);
  }, 600_000);
});
