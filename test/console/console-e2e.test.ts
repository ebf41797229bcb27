// The web console in headless Chromium against the real API, worker, PostgreSQL, Redis and a real agent: an admin
// creates a group and an enrollment secret (a real agent enrolls with the shown command), authors a version in the
// editor (a lint error shown at its line, then fixed), releases it staged and watches the rings reach the agent,
// sees the agent's hook run in the explorer and exports it; an auditor then finds no write control anywhere.
// No console error on any page. Screenshots of every page go to CONSOLE_SCREENSHOTS (default
// .hookwarden/console-screenshots; the committed ones are in docs/console).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_BIN, type AgentProcess, runAgent, spawnAgent, stopAgent, waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type ProblemLog, type TestBrowser, watchProblems, consolePages } from '../support/browser';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

const SHOTS = path.resolve(
  process.env.CONSOLE_SCREENSHOTS ?? path.join(__dirname, '../../.hookwarden/console-screenshots'),
);
const MANAGED = '/opt/hw-console';

let api: TestApi;
let worker: INestApplicationContext;
let browser: TestBrowser;
let auditorToken: string;
let tmp: string;
let agentProc: AgentProcess | undefined;
/** What the admin run created, for the auditor's tour. */
const made: Record<string, string> = {};

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '0' });
  worker = await startTestWorker(api.config);
  browser = await launchBrowser();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-console-e2e-'));
  await fs.mkdir(SHOTS, { recursive: true });
  const aud = await call(api.baseUrl, 'POST', '/v1/tokens', {
    token: api.adminToken,
    body: { name: 'Avery Auditor', role: 'auditor' },
  });
  auditorToken = aud.body.token;
}, 60_000);

afterAll(async () => {
  if (agentProc) await stopAgent(agentProc);
  await browser?.close();
  await worker?.close();
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

// Saves a full-page screenshot of the current page as docs-ready PNG.
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

// Signs in with a token; opens a console path and waits for its main heading.
const { signIn, open } = consolePages(() => api.baseUrl);

// Replaces the whole document of the CodeMirror editor with `text`, as typing would.
async function setEditor(page: Page, label: string, text: string): Promise<void> {
  const editor = page.getByLabel(label, { exact: true });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

// The visible text of the problems list under the editor ('' when there is none).
const problemsText = async (page: Page): Promise<string> =>
  (await page.getByTestId('problems').count()) ? await page.getByTestId('problems').innerText() : '';

describe('web console in a real browser', () => {
  it('admin: group, secret, agent, editor with inline lint, staged release, hook run, export', async () => {
    const page = await browser.context.newPage();
    const log: ProblemLog = watchProblems(page);

    // Sign-in page.
    await page.goto(`${api.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await shot(page, 'sign-in');
    // A wrong token: the API's message is shown (the expected 401 is the only failed request of this run).
    await page.getByLabel('API token').fill('hwt_not_a_real_token_0000000000000000000000');
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/401/);
    log.problems.splice(0); // the refused sign-in logs its 401 on purpose
    await page.getByLabel('API token').fill(api.adminToken);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.getByTestId('role').innerText()).toBe('Admin');
    // The token lives in this tab's sessionStorage only.
    // (Browser-side expressions are strings: this file is compiled without the DOM library.)
    const storage = await page.evaluate<{ local: string; session: number }>(
      '({ local: JSON.stringify(localStorage), session: sessionStorage.length })',
    );
    expect(storage.local).not.toContain(api.adminToken);
    expect(storage.session).toBe(1);
    // A reload keeps the session (this tab's sessionStorage) and its first requests carry the token.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText('Applied version by group').waitFor();

    // Keyboard: the skip link and the navigation are reachable with Tab and open with Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Groups & endpoints');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Groups & endpoints' }).waitFor();

    // Create a group.
    await page.getByLabel('Name').fill('console-fleet');
    await page.getByLabel('Description').fill('Laptops enrolled by the browser test');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { level: 1, name: 'Group · console-fleet' }).waitFor();
    made.groupId = page.url().split('/').pop()!;

    // An enrollment secret, shown once with the exact enroll command; a real agent enrolls with it.
    await page.getByText('New enrollment secret').click();
    await page.getByLabel('Name', { exact: true }).fill('e2e laptops');
    await page.getByLabel('Use limit').fill('5');
    await page.getByRole('button', { name: 'Create secret' }).click();
    const command = await page.getByTestId('enroll-command').innerText();
    expect(command).toMatch(new RegExp(`^hookwarden-agent enroll --server ${api.baseUrl} --secret hws_\\S+$`));
    const secret = command.split('--secret ')[1]!;
    const root = path.join(tmp, 'root');
    const stateDir = path.join(tmp, 'state');
    await fs.mkdir(path.join(root, 'etc'), { recursive: true });
    await fs.writeFile(path.join(root, 'etc/machine-id'), `console-e2e-${Date.now()}\n`);
    const enrolled = await runAgent([
      ...command.replace('hookwarden-agent ', '').split(' '),
      '--state-dir',
      stateDir,
      '--root',
      root,
    ]);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    expect(secret.startsWith('hws_')).toBe(true);
    const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8'));
    made.endpointId = creds.endpointId;
    agentProc = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '30']);
    await page.reload();
    await page.getByRole('link', { name: os.hostname() }).first().waitFor();
    await shot(page, 'group');
    await open(page, '/groups', 'Groups & endpoints');
    await page.getByRole('link', { name: 'console-fleet' }).waitFor();
    await shot(page, 'groups');

    // A policy in the group, then its first version in the editor.
    await open(page, '/policies', 'Policies');
    await page.getByLabel('Name').fill('console-policy');
    await page.getByLabel('Group').selectOption({ label: 'console-fleet' });
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('heading', { level: 1, name: 'New version · console-policy' }).waitFor();
    made.policyId = page.url().split('/').slice(-2)[0]!;
    const script = path.join(root, MANAGED, 'check.sh');
    const good =
      `[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n` +
      `[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "/bin/sh ${script}"\ntimeout = 30\n`;
    const bad = good.replace('timeout = 30', 'timeout = = 30'); // line 10
    const badLine = bad.split('\n').findIndex((l) => l.startsWith('timeout')) + 1;
    await setEditor(page, 'requirements.toml editor', bad);
    await expect.poll(() => problemsText(page), { timeout: 10_000 }).toContain(`line ${badLine}`);
    expect(await page.getByTestId('lint-status').innerText()).toMatch(/1 problem/);
    // The problem is marked inline in the editor at that line.
    await page.locator('.cm-lintRange-error').first().waitFor();
    const markedLine = await page.locator('.cm-line', { has: page.locator('.cm-lintRange-error') }).innerText();
    expect(markedLine).toContain('timeout = = 30');
    expect(await page.getByRole('button', { name: 'Create version' }).isDisabled()).toBe(true);
    await shot(page, 'policy-editor-lint-error');
    await setEditor(page, 'requirements.toml editor', good);
    await expect.poll(() => page.getByTestId('lint-status').innerText(), { timeout: 10_000 }).toMatch(/^Valid/);
    await page.getByRole('button', { name: 'Edit' }).first().click();
    await setEditor(page, 'Content of check.sh', '#!/bin/sh\necho "checked by hookwarden" >&2\nexit 0\n');
    // A second managed file by upload.
    await page.getByLabel('Upload files…').setInputFiles({
      name: 'helper.sh',
      mimeType: 'text/x-sh',
      buffer: Buffer.from('#!/bin/sh\necho helper\n'),
    });
    await page.getByLabel('Path of file 2').waitFor();
    expect(await page.getByLabel('Path of file 2').inputValue()).toBe('helper.sh');
    await page.getByLabel('Message (what changed and why)').fill('First managed Bash check');
    await expect.poll(() => page.getByTestId('lint-status').innerText()).toMatch(/^Valid/);
    await shot(page, 'policy-editor');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { level: 1, name: 'Policy · console-policy' }).waitFor();
    await page.getByRole('heading', { name: 'Version 1' }).waitFor();
    // A second version from elsewhere (the API), so the diff has something to show.
    const v2 = await call(api.baseUrl, 'POST', `/v1/policies/${made.policyId}/versions`, {
      token: api.adminToken,
      body: {
        toml: good.replace('timeout = 30', 'timeout = 20\nstatusMessage = "Checking Bash"'),
        files: [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 }],
        message: 'Shorter timeout',
        baseVersion: 1,
      },
    });
    expect(v2.status).toBe(201);
    await open(page, `/policies/${made.policyId}`, 'Policy · console-policy');
    await page.getByRole('heading', { name: 'Version 2' }).waitFor();
    await shot(page, 'policy');
    await page.getByRole('button', { name: 'Compare versions' }).click();
    await page.locator('.cm-mergeView').waitFor();
    await page.locator('.cm-changedLine').first().waitFor();
    await shot(page, 'policy-diff');
    await open(page, '/policies', 'Policies');
    await page.getByRole('cell', { name: 'v2' }).waitFor();
    await shot(page, 'policies');

    // A concurrent edit: the editor's base (v2) goes stale while it is open; the API's 409 is shown with the current
    // version, and rebasing keeps the author's text.
    await open(page, `/policies/${made.policyId}/new`, 'New version · console-policy');
    await expect.poll(() => page.getByTestId('lint-status').innerText(), { timeout: 10_000 }).toMatch(/^Valid/);
    const v3 = await call(api.baseUrl, 'POST', `/v1/policies/${made.policyId}/versions`, {
      token: api.adminToken,
      body: { toml: good, files: [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 }], baseVersion: 2 },
    });
    expect(v3.status).toBe(201);
    await setEditor(page, 'requirements.toml editor', good.replace('timeout = 30', 'timeout = 45'));
    await expect.poll(() => page.getByTestId('lint-status').innerText(), { timeout: 10_000 }).toMatch(/^Valid/);
    await page.getByLabel('Message (what changed and why)').fill('Longer timeout');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect
      .poll(() => page.getByRole('alert').innerText())
      .toMatch(/Stale base: the latest version is 3[\s\S]*409 conflict · POST \/v1\/policies\//);
    log.problems.splice(0); // the refused create logs its 409 on purpose
    await page.getByRole('button', { name: 'base this edit on version 3' }).click();
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'Version 4' }).waitFor();
    expect(
      (await call(api.baseUrl, 'GET', `/v1/policies/${made.policyId}/versions/4`, { token: api.adminToken })).body.toml,
    ).toContain('timeout = 45');

    // A staged release of version 1: rings 50/100, 2 s apart; the live view follows it to the agent.
    await open(page, `/releases?group=${made.groupId}`, 'Releases');
    await page.getByLabel('Policy').selectOption({ label: 'console-policy' });
    await page.getByLabel('Version').selectOption({ label: 'v1 — First managed Bash check' });
    await page.getByLabel('Rings (cumulative %)').fill('50, 100');
    await page.getByLabel('Interval between rings (s)').fill('2');
    await page.getByRole('button', { name: 'Start release' }).click();
    await page.getByRole('heading', { level: 1, name: /Release · revision 1/ }).waitFor();
    made.releaseId = page.url().split('/').pop()!;
    const applied = async () =>
      (await page.locator('td[data-col="applied"]').allInnerTexts()).reduce((n, t) => n + Number(t), 0);
    await expect.poll(applied, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => page.locator('.live .badge').innerText(), { timeout: 20_000 }).toBe('completed');
    const onDisk = await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8');
    expect(onDisk).toContain(script);
    await shot(page, 'rollout');
    await open(page, `/releases?group=${made.groupId}`, 'Releases');
    await page.getByRole('link', { name: 'Revision 1' }).waitFor();
    await shot(page, 'releases');

    // A hook event on the agent: the record is uploaded by `hookwarden-agent run` and appears in the explorer.
    await dispatch(root, stateDir);
    await waitFor(
      async () =>
        (await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${made.endpointId}`, { token: api.adminToken })).body
          .items.length === 1,
      20_000,
      'the agent to upload the hook run',
    );
    await open(page, `/hook-runs?endpointId=${made.endpointId}`, 'Hook runs');
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Apply filters' }).click();
        return (await page.locator('tr[data-run]').count()) > 0;
      },
      20_000,
      'the hook run in the explorer',
    );
    expect(await page.locator('tr[data-run]').first().innerText()).toMatch(/PreToolUse[\s\S]*Bash[\s\S]*ran/);
    await shot(page, 'hook-runs');
    // Exports of the current filter, fetched with the bearer header and saved as files.
    for (const format of ['CSV', 'NDJSON']) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Export ${format}` }).click(),
      ]);
      const text = await fs.readFile(await download.path(), 'utf8');
      expect(download.suggestedFilename()).toMatch(new RegExp(`^hook-runs-.*\\.${format.toLowerCase()}$`));
      if (format === 'CSV') {
        expect(text.split('\n')[0]).toMatch(/endpoint/i);
        expect(text).toContain(made.endpointId);
      } else {
        // NDJSON: the records as the endpoint uploaded them, one per line.
        const lines = text.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'PreToolUse', sessionId: 's-console', status: 'ran' });
      }
    }
    await page.locator('tr[data-run] a').first().click();
    await page.getByRole('heading', { level: 1, name: 'Hook run' }).waitFor();
    made.runPath = new URL(page.url()).pathname.replace('/console', '');
    await shot(page, 'hook-run');

    // Endpoint detail, overview with data, audit log with a kept checkpoint.
    await open(page, `/endpoints/${made.endpointId}`, /Endpoint · /);
    await page.getByRole('cell', { name: 'PreToolUse' }).first().waitFor();
    await shot(page, 'endpoint');
    await open(page, '/', 'Overview');
    await page.locator('.chart canvas').waitFor();
    await shot(page, 'overview');
    await open(page, '/audit', 'Audit log');
    await page.getByRole('button', { name: 'Verify now' }).click();
    await expect
      .poll(() => page.getByTestId('verify-result').innerText())
      .toMatch(/Chain intact[\s\S]*Signature: valid/);
    await page.getByRole('button', { name: 'Verify now' }).click(); // now against the kept checkpoint
    await page.getByLabel('Kept checkpoint').waitFor();
    await expect.poll(() => page.getByTestId('verify-result').innerText()).toMatch(/Chain intact/);
    await page.getByRole('cell', { name: 'release.create' }).first().waitFor();
    await shot(page, 'audit');

    expect(log.problems).toEqual([]);
    await page.close();
  }, 150_000);

  it('auditor: every page readable, no write control anywhere, no console error', async () => {
    const page = await browser.context.newPage(); // a new tab: its own sessionStorage, signed out
    const log = watchProblems(page);
    await signIn(page, auditorToken);
    expect(await page.getByTestId('role').innerText()).toBe('Auditor · read-only');
    // The role comes from GET /v1/me: signing in makes no request that fails (no 403 probe of an admin route).
    expect(log.problems).toEqual([]);
    const pages: Array<[string, RegExp | string, string?]> = [
      ['/', 'Overview', 'auditor-overview'],
      ['/groups', 'Groups & endpoints'],
      [`/groups/${made.groupId}`, 'Group · console-fleet'],
      [`/endpoints/${made.endpointId}`, /Endpoint · /],
      ['/policies', 'Policies'],
      [`/policies/${made.policyId}`, 'Policy · console-policy', 'auditor-policy'],
      [`/releases?group=${made.groupId}`, 'Releases'],
      [`/releases/${made.releaseId}`, /Release · revision 1/],
      [`/hook-runs?endpointId=${made.endpointId}`, 'Hook runs'],
      [made.runPath!, 'Hook run'],
      ['/audit', 'Audit log', 'auditor-audit'],
    ];
    for (const [p, heading, name] of pages) {
      await open(page, p, heading);
      await page.waitForLoadState('networkidle');
      expect(await page.locator('[data-write]').count(), `${p}: write controls`).toBe(0);
      const buttons = await page.getByRole('button').allInnerTexts();
      expect(
        buttons.filter((b) => /create|revoke|pause|resume|advance|abort|add key|activate|retire|start/i.test(b)),
        p,
      ).toEqual([]);
      if (name) await shot(page, name);
    }
    // The editor route itself tells an auditor it is for admins.
    await page.goto(`${api.baseUrl}/console/policies/${made.policyId}/new`);
    await page.getByText('Only admins author policy versions.').waitFor();
    expect(await page.locator('.cm-editor').count()).toBe(0);
    expect(log.problems).toEqual([]);
    // Sign-out forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.close();
  }, 90_000);
});

// `hookwarden-agent hooks dispatch PreToolUse` for a Bash tool call, as ZeroCode would run it.
async function dispatch(root: string, stateDir: string): Promise<void> {
  const home = path.join(tmp, 'home');
  await fs.mkdir(home, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      AGENT_BIN,
      'hooks',
      'dispatch',
      'PreToolUse',
      '--root',
      root,
      '--state-dir',
      stateDir,
      '--home',
      home,
      '--project',
      tmp,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(
    JSON.stringify({
      session_id: 's-console',
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      cwd: tmp,
    }),
  );
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  expect(code, err).toBe(0);
  expect(JSON.parse(out).runs).toHaveLength(1);
}
