// Single sign-on in the web console, in headless Chromium against a real OpenID Provider on loopback: the sign-in page
// offers SSO, the real redirects sign an admin in (name and role shown, writes work through the cookie with its CSRF
// token), a reload keeps the session, an auditor gets the read-only console, a person in no mapped group gets the
// API's refusal page, a revoked session sends the console back to sign-in saying why, and sign-out ends the session
// at the API and at the provider. A person mints a CLI token in the console and the real CLI logs in with it.
// No console error on any page.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { launchBrowser, type TestBrowser, watchProblems } from '../support/browser';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { startTestProvider, type TestProvider } from '../support/oidc-provider';
import { freePort } from '../support/net';

let api: TestApi;
let idp: TestProvider;
let browser: TestBrowser;

beforeAll(async () => {
  const apiUrl = `http://127.0.0.1:${await freePort()}`;
  idp = await startTestProvider(`${apiUrl}/v1/auth/oidc/callback`);
  api = await startTestApi({
    PORT: new URL(apiUrl).port,
    OIDC_ISSUER_URL: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_REDIRECT_URL: `${apiUrl}/v1/auth/oidc/callback`,
    OIDC_ALLOW_INSECURE_ISSUER: 'true',
    OIDC_ADMIN_GROUPS: 'hw-admins',
    OIDC_AUDITOR_GROUPS: 'security',
  });
  idp.users.set('alice', { email: 'alice@example.test', name: 'Alice Admin', groups: ['hw-admins'] });
  idp.users.set('bob', { email: 'bob@example.test', name: 'Bob Auditor', groups: ['security'] });
  idp.users.set('mallory', { email: 'mallory@example.test', name: 'Mallory', groups: ['engineering'] });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await idp?.close();
});

// Opens the console signed out and signs in through the identity provider as `subject`, starting from `path`.
async function signInWithSso(page: Page, subject: string, path = '/'): Promise<void> {
  idp.signInAs(subject);
  await page.goto(`${api.baseUrl}/console${path}`);
  await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
  await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
}

describe('console single sign-on', () => {
  it('signs an admin in through the identity provider; the session survives a reload and writes carry CSRF', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await signInWithSso(page, 'alice', '/groups');
    // Back on the page the sign-in started from, signed in as the person the IdP named.
    await page.getByRole('heading', { level: 1, name: 'Groups & endpoints' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/groups');
    await expect.poll(() => page.getByTestId('who').textContent()).toBe('Alice Admin');
    expect(await page.getByTestId('role').textContent()).toBe('Admin');
    // The page never sees the session secret: the cookie is HttpOnly.
    expect(await page.evaluate('document.cookie')).not.toContain('hw_session');
    // A write through the cookie session (the console adds the CSRF header) is recorded with the person.
    const form = page.getByRole('form', { name: 'Create a group' });
    await form.getByLabel('Name', { exact: true }).fill('sso-console-group');
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { level: 1, name: 'Group · sso-console-group' }).waitFor();
    const audit = await call(api.baseUrl, 'GET', '/v1/audit-log?action=group.create', { token: api.adminToken });
    expect(audit.status).toBe(200);
    expect(audit.body.items).toHaveLength(1);
    expect(JSON.stringify(audit.body.items[0])).toContain('alice@example.test');
    // A reload keeps the session (the cookie, asked through GET /v1/me).
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Group · sso-console-group' }).waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('Admin');
    expect(log.problems).toEqual([]);
    await page.close();
  });

  it('mints a personal CLI token with the person’s role; the real CLI logs in with it; revoking it ends it', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await page.context().clearCookies();
    await signInWithSso(page, 'alice');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'CLI tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'CLI tokens' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a CLI token' });
    await form.getByLabel('What it is for').fill('laptop CLI');
    await form.getByLabel('Lifetime').selectOption({ label: '1 hour' });
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByTestId('token-secret').textContent())!;
    expect(secret).toMatch(/^hwt_/);
    expect(await page.getByTestId('login-command').textContent()).toBe(
      `hookwarden login --url ${api.baseUrl} --token -`,
    );
    // The real CLI stores it and acts as Alice, an admin.
    const home = await mkdtemp(path.join(os.tmpdir(), 'hw-sso-cli-'));
    try {
      const env = { HOOKWARDEN_CONFIG: path.join(home, 'config.toml') };
      // `login --sso` names the console page that mints the token and reads the pasted token (piped here).
      const login = await runCli(['login', '--url', api.baseUrl, '--sso', '--no-browser'], env, 60_000, `${secret}\n`);
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(`${api.baseUrl}/console/cli-tokens`);
      const created = await runCli(['groups', 'create', 'from-cli-token', '-o', 'json'], env);
      expect(created.code, created.stderr).toBe(0);
      const audit = await call(api.baseUrl, 'GET', '/v1/audit-log?action=group.create', { token: api.adminToken });
      const entry = audit.body.items.find((e: any) => JSON.stringify(e).includes('from-cli-token'));
      expect(JSON.stringify(entry)).toContain('alice@example.test');
      // Listed in the console with its expiry; revoked there, the CLI is refused at once.
      const row = page.getByRole('row', { name: /laptop CLI/ });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /revoke/i })
        .click();
      await expect.poll(() => row.textContent()).toContain('revoked');
      const refused = await runCli(['groups', 'list'], env);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/401|revoked|not valid|unauthori/i);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    expect(log.problems).toEqual([]);
    await page.close();
  });

  it('gives an auditor the read-only console', async () => {
    const page = await browser.context.newPage();
    const log = watchProblems(page);
    await page.context().clearCookies();
    await signInWithSso(page, 'bob');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByTestId('role').textContent()).toBe('Auditor · read-only');
    expect(await page.getByTestId('who').textContent()).toBe('Bob Auditor');
    await page.goto(`${api.baseUrl}/console/groups`);
    await page.getByRole('heading', { level: 1, name: 'Groups & endpoints' }).waitFor();
    expect(await page.getByRole('form', { name: 'Create a group' }).count()).toBe(0);
    expect(log.problems).toEqual([]);
    await page.close();
  });

  it('shows the refusal of a person in no mapped group, and no session', async () => {
    const page = await browser.context.newPage();
    await page.context().clearCookies();
    await signInWithSso(page, 'mallory');
    await expect.poll(async () => (await page.textContent('body')) ?? '').toMatch(/no group|not .*mapped|role/i);
    await page.goto(`${api.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.close();
  });

  it('sends the console back to sign-in, saying why, when an admin revokes the session', async () => {
    const page = await browser.context.newPage();
    await page.context().clearCookies();
    await signInWithSso(page, 'alice');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const sessions = await call(api.baseUrl, 'GET', '/v1/sessions?active=true&subject=alice', {
      token: api.adminToken,
    });
    expect(sessions.status).toBe(200);
    const live = sessions.body.items as Array<{ id: string }>;
    expect(live.length).toBeGreaterThan(0);
    for (const s of live) {
      const revoked = await call(api.baseUrl, 'DELETE', `/v1/sessions/${s.id}`, { token: api.adminToken });
      expect(revoked.status).toBe(200);
    }
    // The next request the console makes answers 401: it signs out, saying why.
    await page.getByRole('link', { name: 'Groups & endpoints' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/single sign-on session has ended/);
    await page.close();
  });

  it('signs out at the API and at the identity provider', async () => {
    const page = await browser.context.newPage();
    await page.context().clearCookies();
    await signInWithSso(page, 'alice');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const before = await call(api.baseUrl, 'GET', '/v1/sessions?active=true&subject=alice', {
      token: api.adminToken,
    });
    expect(before.body.items).toHaveLength(1);
    const id = before.body.items[0].id as string;
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider asks to confirm its own sign-out (RP-initiated logout), then returns to the console.
    await page.getByRole('button', { name: /yes, sign me out/i }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    const after = await call(api.baseUrl, 'GET', '/v1/sessions', { token: api.adminToken });
    expect(after.body.items.find((s: any) => s.id === id)?.revokedAt).toBeTruthy();
    // The cookie is gone: a reload stays signed out.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.close();
  });
});
