// Single sign-on against a real OpenID Provider on loopback: sign-in through the real redirects, group→role mapping,
// refused people, session expiry and revocation, role re-checks, key rotation, CSRF, personal tokens and sign-out.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { startTestProvider, type TestProvider } from '../support/oidc-provider';
import { type AppRoute, appRoutes, concretePath } from '../support/routes';
import { freePort } from '../support/net';

let api: TestApi;
let idp: TestProvider;
let db: pg.Client;
const SESSION_COOKIE = '__Host-hw_session';

/** A browser-like client: follows redirects by hand and keeps cookies per origin. */
class Browser {
  readonly jar = new Map<string, Map<string, string>>();

  // The Cookie header for a URL's origin.
  cookieFor(url: URL): string {
    return [...(this.jar.get(url.origin) ?? new Map<string, string>()).entries()]
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  }

  // Stores the Set-Cookie headers of a response (Max-Age=0 removes).
  keep(url: URL, res: Response): void {
    const cookies = this.jar.get(url.origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(url.origin, cookies);
  }

  // GETs a URL and follows redirects across origins; returns the last response and its body.
  async navigate(start: string, maxHops = 15): Promise<{ url: URL; status: number; text: string; headers: Headers }> {
    let url = new URL(start);
    for (let hop = 0; hop < maxHops; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: this.cookieFor(url) } });
      this.keep(url, res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        url = new URL(location, url);
        continue;
      }
      return { url, status: res.status, text: await res.text(), headers: res.headers };
    }
    throw new Error('too many redirects');
  }

  // The session cookie the API set, if any.
  get session(): string | undefined {
    return this.jar.get(new URL(api.baseUrl).origin)?.get(SESSION_COOKIE);
  }
}

// Signs a person in through the real flow; returns the browser (with the session cookie) and the final page.
async function signIn(
  subject: string,
  returnTo = '/v1/me',
): Promise<{ browser: Browser; status: number; text: string; url: URL }> {
  idp.signInAs(subject);
  const browser = new Browser();
  const end = await browser.navigate(`${api.baseUrl}/v1/auth/oidc/login?returnTo=${encodeURIComponent(returnTo)}`);
  return { browser, status: end.status, text: end.text, url: end.url };
}

// Signs in until it succeeds (the JWKS refetch after a key change has a one-second cooldown); the last status.
async function signInWorks(): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status } = await signIn('alice');
    if (status === 200 || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 250));
  }
}

// A JSON request authenticated by a browser's session cookie (with its CSRF token unless told otherwise).
async function asSession(
  browser: Browser,
  method: string,
  path: string,
  options: { body?: unknown; csrf?: string | false; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { cookie: `${SESSION_COOKIE}=${browser.session ?? ''}`, ...options.headers };
  if (method !== 'GET' && options.csrf !== false) {
    headers['x-csrf-token'] = options.csrf ?? (await csrfOf(browser));
  }
  return call(api.baseUrl, method, path, { ...(options.body !== undefined ? { body: options.body } : {}), headers });
}

// The CSRF token of a browser's session (from GET /v1/me).
async function csrfOf(browser: Browser): Promise<string> {
  const me = await call(api.baseUrl, 'GET', '/v1/me', { headers: { cookie: `${SESSION_COOKIE}=${browser.session}` } });
  return me.body?.session?.csrfToken ?? '';
}

// The id of a browser's session.
async function sessionIdOf(browser: Browser): Promise<string> {
  const me = await asSession(browser, 'GET', '/v1/me');
  return me.body.session.id as string;
}

beforeAll(async () => {
  // The provider needs the API's callback URL and the API the provider's issuer: reserve a port for the API first.
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
    OIDC_AUDITOR_GROUPS: 'hw-auditors,security',
    SESSION_REFRESH_INTERVAL_SEC: '3600',
    AUTH_FAILURE_LIMIT: '1000000',
  });
  idp.users.set('alice', { email: 'alice@example.test', name: 'Alice Admin', groups: ['engineering', 'hw-admins'] });
  idp.users.set('bob', { email: 'bob@example.test', name: 'Bob Auditor', groups: ['security'] });
  idp.users.set('mallory', { email: 'mallory@example.test', name: 'Mallory', groups: ['engineering'] });
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await api?.close();
  await idp?.close();
});

describe('sign-in through the identity provider', () => {
  it('signs an admin in through the real redirects and maps the admin group to the admin role', async () => {
    const { browser, status, text, url } = await signIn('alice');
    expect(url.pathname).toBe('/v1/me');
    expect(status).toBe(200);
    const me = JSON.parse(text);
    expect(me).toMatchObject({
      kind: 'session',
      role: 'admin',
      person: { issuer: idp.issuer, subject: 'alice', email: 'alice@example.test', name: 'Alice Admin' },
    });
    expect(me.session.csrfToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(Date.parse(me.session.expiresAt)).toBeGreaterThan(Date.now());
    // The cookie is HttpOnly, Secure, SameSite and host-only; the refresh token is stored encrypted.
    const row = await db.query('SELECT secret_hash, refresh_token_enc, role FROM user_sessions WHERE id = $1', [
      me.session.id,
    ]);
    expect(row.rows[0].role).toBe('admin');
    expect(row.rows[0].secret_hash).not.toContain(browser.session);
    // Sealed under the KEK (the same one as the signing keys), bound to the person.
    expect(row.rows[0].refresh_token_enc).toMatch(/^hwkek1\./);
    // An admin write through the cookie works with the CSRF token.
    const created = await asSession(browser, 'POST', '/v1/groups', { body: { name: 'sso-created' } });
    expect(created.status).toBe(201);
    // The public auth configuration says SSO is on, and whether this browser holds a session cookie.
    const anonymous = await call(api.baseUrl, 'GET', '/v1/auth/config');
    expect(anonymous.body).toEqual({ sso: { enabled: true, loginUrl: '/v1/auth/oidc/login' }, sessionCookie: false });
    const withCookie = await asSession(browser, 'GET', '/v1/auth/config');
    expect(withCookie.body.sessionCookie).toBe(true);
  });

  it('sets the session cookie HttpOnly, Secure, SameSite=Lax and host-only (__Host- prefix)', async () => {
    idp.signInAs('alice');
    const browser = new Browser();
    let url = new URL(`${api.baseUrl}/v1/auth/oidc/login`);
    let setCookie: string[] = [];
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: browser.cookieFor(url) } });
      browser.keep(url, res);
      if (url.pathname === '/v1/auth/oidc/callback') {
        setCookie = res.headers.getSetCookie();
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/console/');
        break;
      }
      url = new URL(res.headers.get('location')!, url);
    }
    const session = setCookie.find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).not.toMatch(/Domain=/i);
  });

  it('maps an auditor group to the read-only role: reads pass, writes answer 403', async () => {
    const { browser, text } = await signIn('bob');
    expect(JSON.parse(text)).toMatchObject({ kind: 'session', role: 'auditor', person: { subject: 'bob' } });
    expect((await asSession(browser, 'GET', '/v1/groups')).status).toBe(200);
    const write = await asSession(browser, 'POST', '/v1/groups', { body: { name: 'nope' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('forbidden');
  });

  it('refuses a person with no mapped group with a clear page, and gives them no session', async () => {
    const { browser, status, text } = await signIn('mallory');
    expect(status).toBe(403);
    expect(text).toContain('No access to Hookwarden');
    expect(text).toContain('mallory@example.test');
    expect(browser.session).toBeUndefined();
    const audit = await call(api.baseUrl, 'GET', '/v1/audit-log?action=session.refuse', { token: api.adminToken });
    expect(audit.body.items.some((e: any) => e.person?.subject === 'mallory')).toBe(true);
  });

  it('refuses a callback that this browser did not start, and a replayed one', async () => {
    idp.signInAs('alice');
    const browser = new Browser();
    // Walk up to the callback without following it.
    let url = new URL(`${api.baseUrl}/v1/auth/oidc/login`);
    let callback: URL | null = null;
    for (let hop = 0; hop < 10 && !callback; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: browser.cookieFor(url) } });
      browser.keep(url, res);
      const next = new URL(res.headers.get('location')!, url);
      if (next.pathname === '/v1/auth/oidc/callback') callback = next;
      else url = next;
    }
    expect(callback).not.toBeNull();
    // Another browser (no login cookie) presenting the code: refused.
    const foreign = await fetch(callback!, { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('could not be verified');
    // The right browser completes it once...
    const first = await fetch(callback!, { redirect: 'manual', headers: { cookie: browser.cookieFor(callback!) } });
    expect(first.status).toBe(303);
    // ...and a replay of the same callback is refused.
    const replay = await fetch(callback!, {
      redirect: 'manual',
      headers: { cookie: `__Host-hw_login=${callback!.searchParams.get('state')}` },
    });
    expect(replay.status).toBe(400);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/.test(c))).toBe(
      false,
    );
  });

  it('never redirects anywhere but this server after sign-in', async () => {
    for (const target of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const res = await fetch(`${api.baseUrl}/v1/auth/oidc/login?returnTo=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(res.status, target).toBe(400);
    }
  });

  it('normalises returnTo (dot segments, repeated slashes) and refuses one that climbs out', async () => {
    for (const target of [
      '/console/../..//evil.example',
      '/console/..//evil.example',
      '/console/%2e%2e/v1/me',
      '/..',
    ]) {
      const res = await fetch(`${api.baseUrl}/v1/auth/oidc/login?returnTo=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(res.status, target).toBe(400);
      expect(await res.text(), target).toContain('returnTo');
    }
    // What is stored (and later sent as the Location) is the normal form.
    for (const [target, stored] of [
      ['/console//inventory/./x/../y?tab=a//b', '/console/inventory/y?tab=a//b'],
      ['/v1/./groups/..//me', '/v1/me'],
    ] as const) {
      const res = await fetch(`${api.baseUrl}/v1/auth/oidc/login?returnTo=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(res.status, target).toBe(302);
      const state = new URL(res.headers.get('location')!).searchParams.get('state');
      const row = await db.query('SELECT return_to FROM oidc_logins WHERE state = $1', [state]);
      expect(row.rows[0]?.return_to, target).toBe(stored);
    }
  });
});

describe('sessions', () => {
  it('refuses an expired session (absolute timeout) with 401', async () => {
    const { browser } = await signIn('alice');
    const id = await sessionIdOf(browser);
    await db.query(`UPDATE user_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const res = await asSession(browser, 'GET', '/v1/groups');
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/expired/);
  });

  it('ends a session left idle past the idle timeout', async () => {
    const { browser } = await signIn('alice');
    const id = await sessionIdOf(browser);
    await db.query(`UPDATE user_sessions SET last_seen_at = now() - interval '9 hours' WHERE id = $1`, [id]);
    const res = await asSession(browser, 'GET', '/v1/groups');
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/inactivity/);
    const row = await db.query('SELECT revoked_reason FROM user_sessions WHERE id = $1', [id]);
    expect(row.rows[0].revoked_reason).toBe('idle_timeout');
  });

  it('lets an admin list and revoke sessions; a revoked session is refused at once', async () => {
    const { browser } = await signIn('bob');
    const id = await sessionIdOf(browser);
    const list = await call(api.baseUrl, 'GET', '/v1/sessions?active=true&subject=bob', { token: api.adminToken });
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: any) => s.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toMatch(/refreshToken|secretHash|idTokenHint/i);
    const revoked = await call(api.baseUrl, 'DELETE', `/v1/sessions/${id}`, { token: api.adminToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedReason).toBe('revoked_by_admin');
    expect((await asSession(browser, 'GET', '/v1/groups')).status).toBe(401);
    // Auditors cannot list sessions.
    const { browser: auditor } = await signIn('bob');
    expect((await asSession(auditor, 'GET', '/v1/sessions')).status).toBe(403);
  });

  it('re-checks the role at the refresh interval: demotion applies, removal ends the session and its tokens', async () => {
    idp.users.set('carol', { email: 'carol@example.test', name: 'Carol', groups: ['hw-admins'] });
    const { browser } = await signIn('carol');
    const id = await sessionIdOf(browser);
    const minted = await asSession(browser, 'POST', '/v1/me/tokens', { body: { name: 'carol cli' } });
    expect(minted.status).toBe(201);
    expect(minted.body.role).toBe('admin');
    // Demoted at the IdP: once the refresh interval has passed, the session is an auditor and admin tokens go.
    idp.users.get('carol')!.groups = ['hw-auditors'];
    await db.query(`UPDATE user_sessions SET refreshed_at = now() - interval '2 hours' WHERE id = $1`, [id]);
    const me = await asSession(browser, 'GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.role).toBe('auditor');
    expect((await asSession(browser, 'POST', '/v1/groups', { body: { name: 'carol-group' } })).status).toBe(403);
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: minted.body.token })).status).toBe(401);
    // Removed from every mapped group: the session ends at the next refresh.
    idp.users.get('carol')!.groups = [];
    await db.query(`UPDATE user_sessions SET refreshed_at = now() - interval '2 hours' WHERE id = $1`, [id]);
    const gone = await asSession(browser, 'GET', '/v1/me');
    expect(gone.status).toBe(401);
    expect(gone.body.error.message).toMatch(/no longer/);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?targetId=${id}`, { token: api.adminToken });
    expect(audit.body.items.map((e: any) => e.action)).toEqual(
      expect.arrayContaining(['session.role_change', 'session.revoke']),
    );
  });

  it('keeps working after the identity provider rotates its signing keys', async () => {
    await signInWorks();
    const before = await db.query('SELECT count(*)::int AS n FROM user_sessions');
    await idp.rotateKeys();
    // The new key id is unknown to the cached JWKS: the API refetches it (after a short cooldown) and verifies.
    expect(await signInWorks()).toBe(200);
    const after = await db.query('SELECT count(*)::int AS n FROM user_sessions');
    expect(after.rows[0].n).toBeGreaterThan(before.rows[0].n);
  });

  it('refuses an ID token whose signature does not verify against the issuer JWKS', async () => {
    idp.tamperJwks(true);
    try {
      await idp.rotateKeys();
      const { status, text, browser } = await signIn('alice');
      expect(status).toBe(401);
      expect(text).toContain('could not be verified');
      expect(browser.session).toBeUndefined();
    } finally {
      idp.tamperJwks(false);
      await signInWorks();
    }
  });
});

describe('CSRF and credentials', () => {
  it('refuses cookie-authenticated writes without the CSRF token or from another origin', async () => {
    const { browser } = await signIn('alice');
    const missing = await asSession(browser, 'POST', '/v1/groups', { body: { name: 'csrf-1' }, csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.body.error.details[0].field).toBe('header.x-csrf-token');
    const wrong = await asSession(browser, 'POST', '/v1/groups', { body: { name: 'csrf-2' }, csrf: 'A'.repeat(43) });
    expect(wrong.status).toBe(403);
    const foreign = await asSession(browser, 'POST', '/v1/groups', {
      body: { name: 'csrf-3' },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const groups = await call(api.baseUrl, 'GET', '/v1/groups?limit=200', { token: api.adminToken });
    expect(groups.body.items.map((g: any) => g.name)).not.toEqual(expect.arrayContaining(['csrf-1']));
    // Same origin with the token passes.
    const ok = await asSession(browser, 'POST', '/v1/groups', {
      body: { name: 'csrf-ok' },
      headers: { origin: api.baseUrl },
    });
    expect(ok.status).toBe(201);
  });

  it('keeps bearer tokens working unchanged, and a bearer header wins over a cookie', async () => {
    const { browser } = await signIn('bob');
    const me = await call(api.baseUrl, 'GET', '/v1/me', {
      token: api.adminToken,
      headers: { cookie: `${SESSION_COOKIE}=${browser.session}` },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'token', role: 'admin', session: null, person: null });
    const write = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: api.adminToken,
      body: { name: 'bearer-write' },
    });
    expect(write.status).toBe(201);
  });

  it('records the person and the session in the audit log of every admin action, and the chain verifies', async () => {
    const { browser } = await signIn('alice');
    const sessionId = await sessionIdOf(browser);
    const created = await asSession(browser, 'POST', '/v1/groups', { body: { name: 'audited-by-alice' } });
    expect(created.status).toBe(201);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?action=group.create&targetId=${created.body.id}`, {
      token: api.adminToken,
    });
    expect(audit.body.items[0].person).toEqual({
      issuer: idp.issuer,
      subject: 'alice',
      email: 'alice@example.test',
      name: 'Alice Admin',
      sessionId,
    });
    expect(audit.body.items[0].actorName).toBe('alice@example.test');
    const verify = await call(api.baseUrl, 'GET', '/v1/audit-log/verify', { token: api.adminToken });
    expect(verify.body.ok).toBe(true);
    // Altering the recorded person breaks the chain.
    await db.query(
      `UPDATE audit_log SET actor_person = jsonb_set(actor_person, '{email}', '"eve@example.test"') WHERE id = $1`,
      [audit.body.items[0].id],
    );
    const broken = await call(api.baseUrl, 'GET', '/v1/audit-log/verify', { token: api.adminToken });
    expect(broken.body).toMatchObject({ ok: false, problem: 'altered' });
    await db.query(
      `UPDATE audit_log SET actor_person = jsonb_set(actor_person, '{email}', '"alice@example.test"') WHERE id = $1`,
      [audit.body.items[0].id],
    );
  });
});

describe('personal tokens', () => {
  it('mints a short-lived token with the person’s role for the CLI; listed, used, revocable', async () => {
    const { browser } = await signIn('alice');
    const sessionId = await sessionIdOf(browser);
    const minted = await asSession(browser, 'POST', '/v1/me/tokens', { body: { name: 'laptop cli', ttlSec: 3600 } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ role: 'admin', sessionId, name: 'laptop cli' });
    expect(minted.body.token).toMatch(/^hwt_/);
    expect(Date.parse(minted.body.expiresAt) - Date.now()).toBeLessThanOrEqual(3600_000);
    // The token acts as the person: /v1/me and audit entries name them.
    const me = await call(api.baseUrl, 'GET', '/v1/me', { token: minted.body.token });
    expect(me.body).toMatchObject({ kind: 'token', role: 'admin', person: { subject: 'alice' } });
    const group = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: minted.body.token,
      body: { name: 'via-personal-token' },
    });
    expect(group.status).toBe(201);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?targetId=${group.body.id}`, { token: api.adminToken });
    expect(audit.body.items[0].person).toMatchObject({ subject: 'alice', sessionId });
    const list = await asSession(browser, 'GET', '/v1/me/tokens');
    expect(list.body.items.map((t: any) => t.id)).toContain(minted.body.id);
    expect(JSON.stringify(list.body)).not.toContain(minted.body.token);
    // Over the maximum lifetime, and minting from a bearer token, are refused.
    expect(
      (await asSession(browser, 'POST', '/v1/me/tokens', { body: { name: 'x', ttlSec: 400 * 86400 } })).status,
    ).toBe(400);
    expect(
      (await call(api.baseUrl, 'POST', '/v1/me/tokens', { token: minted.body.token, body: { name: 'y' } })).status,
    ).toBe(403);
    // Revoked: stops working.
    const revoked = await asSession(browser, 'DELETE', `/v1/me/tokens/${minted.body.id}`);
    expect(revoked.status).toBe(200);
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: minted.body.token })).status).toBe(401);
  });
});

describe('sign-out', () => {
  it('ends the session, clears the cookie and names the IdP logout URL', async () => {
    const { browser } = await signIn('alice');
    const id = await sessionIdOf(browser);
    const noCsrf = await asSession(browser, 'POST', '/v1/auth/logout', { csrf: false });
    expect(noCsrf.status).toBe(403);
    const res = await fetch(`${api.baseUrl}/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: `${SESSION_COOKIE}=${browser.session}`, 'x-csrf-token': await csrfOf(browser) },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { signedOut: boolean; endSessionUrl: string };
    expect(body.signedOut).toBe(true);
    expect(new URL(body.endSessionUrl).origin).toBe(idp.issuer);
    expect(new URL(body.endSessionUrl).searchParams.get('id_token_hint')).toBeTruthy();
    expect(new URL(body.endSessionUrl).searchParams.get('post_logout_redirect_uri')).toBe(`${api.baseUrl}/console/`);
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=;`) && /Max-Age=0/.test(c))).toBe(
      true,
    );
    expect((await asSession(browser, 'GET', '/v1/me')).status).toBe(401);
    const row = await db.query('SELECT revoked_reason FROM user_sessions WHERE id = $1', [id]);
    expect(row.rows[0].revoked_reason).toBe('sign_out');
  });
});

describe('auth sweep with cookie sessions', () => {
  it('answers every route for anonymous, expired, revoked and auditor sessions as its rule says', async () => {
    const routes: AppRoute[] = appRoutes(api.app);
    const { browser: auditor } = await signIn('bob');
    const { browser: expired } = await signIn('bob');
    await db.query(`UPDATE user_sessions SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      await sessionIdOf(expired),
    ]);
    const { browser: revoked } = await signIn('bob');
    await call(api.baseUrl, 'DELETE', `/v1/sessions/${await sessionIdOf(revoked)}`, { token: api.adminToken });
    const auditorCsrf = await csrfOf(auditor);
    const failures: string[] = [];
    for (const route of routes) {
      const rule = route.rule;
      if (!rule || rule.kind === 'public') continue;
      const path = concretePath(route.path);
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;
      for (const [who, cookie, want] of [
        ['anonymous', '', 401],
        ['expired', expired.session, 401],
        ['revoked', revoked.session, 401],
        [
          'auditor',
          auditor.session,
          // Sessions are opened only with an endpoint key's signature: a person's session is no credential there.
          rule.kind === 'agent-key' ? 401 : rule.kind === 'agent' || !rule.roles.includes('auditor') ? 403 : 'pass',
        ],
      ] as const) {
        const res = await call(api.baseUrl, route.method, path, {
          ...(body !== undefined ? { body } : {}),
          headers: { ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}), 'x-csrf-token': auditorCsrf },
        });
        const ok =
          res.status < 500 && (want === 'pass' ? res.status !== 401 && res.status !== 403 : res.status === want);
        if (!ok) failures.push(`${route.method} ${route.path} as ${who}: got ${res.status}, want ${want}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
