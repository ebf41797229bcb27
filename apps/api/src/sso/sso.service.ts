// Single sign-on for people: the browser legs of the OIDC code flow, sign-out, /v1/me, sessions and personal tokens.
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ApiToken, UserSession } from '@prisma/client';
import type { FastifyRequest } from 'fastify';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthService } from '../auth/auth.service';
import { hashSecret, newSecret, type Principal, secretPrefix, USER_TOKEN_PREFIX } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { createdAtIdKey, decodeCursor, type Page, toPage } from '../common/pagination';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { toTokenView } from '../tokens/tokens.service';
import { serializeCookie } from './cookies';
import { IdpRefusedError, OidcClientService } from './oidc-client.service';
import { messagePage, PAGE_CSP } from './pages';
import { groupsOf, roleFor } from './role-mapping';
import { csrfTokenOf, SessionAuthService, sessionActor } from './session-auth.service';
import { LOGIN_TTL_MS, SessionsRepository } from './sessions.repository';
import type { PersonalTokenView, SessionView } from './sso.dto';
import { DEFAULT_RETURN_TO } from './return-to';

/** Where people land after sign-in when the request named no path. */
const DEFAULT_PERSONAL_TOKEN_TTL_SEC = 8 * 3600;
/** The prefix of session cookie secrets (never accepted as a bearer token). */
const SESSION_SECRET_PREFIX = 'hwc_';

/** What the browser gets: a status, headers (cookies, Location, CSP) and an optional HTML body. */
export interface BrowserResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body?: string;
}

@Injectable()
export class SsoService {
  private readonly logger = new Logger('Sso');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly oidc: OidcClientService,
    private readonly sessions: SessionsRepository,
    private readonly sessionAuth: SessionAuthService,
    private readonly auth: AuthService,
  ) {}

  // Whether SSO is on and where the browser starts it (for the console's sign-in page).
  authConfig(request: FastifyRequest): { sso: { enabled: boolean; loginUrl: string | null }; sessionCookie: boolean } {
    return {
      sso: { enabled: this.oidc.enabled, loginUrl: this.oidc.enabled ? '/v1/auth/oidc/login' : null },
      sessionCookie: this.sessionAuth.hasSession(request),
    };
  }

  // Starts a sign-in: stores state, nonce and PKCE verifier, binds them to this browser, redirects to the IdP.
  async startLogin(returnTo: string | undefined): Promise<BrowserResponse> {
    if (!this.oidc.enabled)
      return this.page(404, 'Single sign-on is off', [
        'This server has no identity provider configured. Sign in with an API token instead.',
      ]);
    const request = await this.oidc.authorizationRequest();
    await this.sessions.createLogin({
      state: request.state,
      nonce: request.nonce,
      codeVerifier: request.codeVerifier,
      returnTo: returnTo ?? DEFAULT_RETURN_TO,
    });
    return {
      status: 302,
      headers: {
        location: request.url.href,
        'cache-control': 'no-store',
        'set-cookie': this.cookie(this.sessionAuth.cookies.login, request.state, LOGIN_TTL_MS / 1000),
      },
    };
  }

  // Completes a sign-in: checks the browser binding, redeems the code, verifies the ID token, maps groups to a role
  // (refusing people with none), creates the session and sets its cookie.
  async completeLogin(request: FastifyRequest, query: Record<string, string | undefined>): Promise<BrowserResponse> {
    if (!this.oidc.enabled)
      return this.page(404, 'Single sign-on is off', ['This server has no identity provider configured.']);
    const clearLogin = this.cookie(this.sessionAuth.cookies.login, '', 0);
    const again = { href: '/v1/auth/oidc/login', text: 'Sign in again' };
    if (query.error) {
      return this.page(
        401,
        'Sign-in was not completed',
        [
          `The identity provider answered: ${query.error}${query.error_description ? ` (${query.error_description})` : ''}.`,
        ],
        again,
        clearLogin,
      );
    }
    const bound = this.sessionAuth.loginStateOf(request);
    if (!query.state || !query.code || !bound || bound !== query.state) {
      return this.page(
        400,
        'Sign-in could not be verified',
        ['This sign-in did not start in this browser, or it was already used. Start it again.'],
        again,
        clearLogin,
      );
    }
    const login = await this.sessions.consumeLogin(query.state);
    if (!login) {
      return this.page(
        400,
        'Sign-in expired',
        ['The sign-in took too long or was already completed. Start it again.'],
        again,
        clearLogin,
      );
    }
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
    const ctx = this.requestCtx(request);
    let identity;
    try {
      identity = await this.oidc.completeSignIn(params, login);
    } catch (err) {
      if (err instanceof IdpRefusedError) {
        this.logger.warn(`sign-in refused: ${err.error}: ${err.message}`);
        await this.sessions.recordRefusal(ctx, { reason: err.error });
        return this.page(
          401,
          'Sign-in failed',
          [
            `The identity provider's answer could not be verified (${err.error}). Start again; if it keeps failing, tell your administrator.`,
          ],
          again,
          clearLogin,
        );
      }
      if (err instanceof ApiError) throw err;
      this.logger.warn(`sign-in failed, identity provider unreachable: ${(err as Error).message}`);
      return this.page(
        503,
        'Identity provider unreachable',
        ['The identity provider could not be reached to complete the sign-in. Try again shortly.'],
        again,
        clearLogin,
      );
    }
    const groups = groupsOf(identity.claims, this.config.OIDC_GROUPS_CLAIM);
    const role = roleFor(groups, {
      adminGroups: this.config.OIDC_ADMIN_GROUPS,
      auditorGroups: this.config.OIDC_AUDITOR_GROUPS,
    });
    const who = identity.email ?? identity.name ?? identity.subject;
    if (!role) {
      await this.sessions.recordRefusal(
        {
          ...ctx,
          actorName: who,
          person: {
            issuer: identity.issuer,
            subject: identity.subject,
            email: identity.email,
            name: identity.name,
            sessionId: null,
          },
        },
        { reason: 'no_mapped_group', groups: groups.slice(0, 50) },
      );
      return this.page(
        403,
        'No access to Hookwarden',
        [
          `You signed in as ${who}, but none of your identity-provider groups grants a Hookwarden role.`,
          `Ask your administrator to add you to one of the groups mapped to admin or auditor (claim "${this.config.OIDC_GROUPS_CLAIM}").`,
        ],
        undefined,
        clearLogin,
      );
    }
    const secret = newSecret(SESSION_SECRET_PREFIX);
    const now = Date.now();
    await this.sessions.createSession(
      {
        secretHash: hashSecret(secret),
        issuer: identity.issuer,
        subject: identity.subject,
        email: identity.email,
        name: identity.name,
        role,
        groups,
        refreshTokenEnc: identity.refreshToken
          ? this.sessionAuth.sealRefreshToken(identity.refreshToken, identity)
          : null,
        idTokenHint: identity.idToken,
        expiresAt: new Date(now + this.config.SESSION_ABSOLUTE_TIMEOUT_SEC * 1000),
        clientIp: request.ip ?? null,
        userAgent:
          typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'].slice(0, 500) : null,
      },
      { ...ctx, actorName: who, role },
    );
    return {
      status: 303,
      headers: {
        location: login.returnTo,
        'cache-control': 'no-store',
        'set-cookie': [
          this.cookie(this.sessionAuth.cookies.session, secret, this.config.SESSION_ABSOLUTE_TIMEOUT_SEC),
          clearLogin,
        ],
      },
    };
  }

  // Signs out: ends the request's session (if live) and clears the cookie; names the IdP's logout URL if it has one.
  async logout(
    request: FastifyRequest,
  ): Promise<{ result: { signedOut: boolean; endSessionUrl: string | null }; setCookie: string }> {
    const clear = this.cookie(this.sessionAuth.cookies.session, '', 0);
    let signedOut = false;
    let idTokenHint: string | null = null;
    if (this.sessionAuth.hasSession(request) && !request.headers.authorization) {
      const principal = await this.sessionAuth.authenticate(request).catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 'forbidden') throw err;
        return null;
      });
      const session = principal?.kind === 'user' ? await this.sessions.findById(principal.tokenId) : null;
      if (session && !session.revokedAt) {
        await this.sessions.revoke(
          session,
          'sign_out',
          sessionActor(session, String(request.id), request.ip ?? null),
          new Date(),
        );
        this.auth.invalidateAll();
        signedOut = true;
        idTokenHint = session.idTokenHint;
      }
    }
    const endSessionUrl = signedOut ? await this.oidc.endSessionUrl(idTokenHint) : null;
    return { result: { signedOut, endSessionUrl }, setCookie: clear };
  }

  // Who is calling: the person, role and session (with its CSRF token), or the API token.
  async me(principal: Principal, request: FastifyRequest): Promise<unknown> {
    if (principal.kind !== 'user') throw new ApiError('forbidden', 'This route is for people, not agents');
    const person = principal.person
      ? {
          issuer: principal.person.issuer,
          subject: principal.person.subject,
          email: principal.person.email,
          name: principal.person.name,
        }
      : null;
    if (principal.via === 'session') {
      const session = await this.sessions.findById(principal.tokenId);
      const secret = this.sessionAuth.secretOf(request);
      if (!session || !secret) throw new ApiError('unauthorized', 'Your session has ended; sign in again');
      const idleEnd = Math.min(session.expiresAt.getTime(), Date.now() + this.config.SESSION_IDLE_TIMEOUT_SEC * 1000);
      return {
        kind: 'session',
        role: session.role,
        name: principal.name,
        person,
        session: {
          id: session.id,
          createdAt: session.createdAt.toISOString(),
          expiresAt: session.expiresAt.toISOString(),
          idleExpiresAt: new Date(idleEnd).toISOString(),
          refreshedAt: session.refreshedAt.toISOString(),
          csrfToken: csrfTokenOf(secret),
        },
        token: null,
      };
    }
    const token = await this.sessions.findToken(principal.tokenId);
    return {
      kind: 'token',
      role: principal.role,
      name: principal.name,
      person,
      session: null,
      token: { id: principal.tokenId, expiresAt: token?.expiresAt?.toISOString() ?? null },
    };
  }

  // Lists sessions for admins.
  async listSessions(query: {
    limit: number;
    cursor?: string;
    active?: 'true' | 'false';
    subject?: string;
  }): Promise<Page<SessionView>> {
    const after = decodeCursor('sessions', query.cursor, createdAtIdKey);
    const rows = await this.sessions.list(
      { subject: query.subject, active: query.active === undefined ? undefined : query.active === 'true' },
      query.limit + 1,
      after,
    );
    return toPage('sessions', rows, query.limit, toSessionView, (r) => ({ t: r.createdAt.toISOString(), id: r.id }));
  }

  // Revokes a session (admin), with the personal tokens it minted.
  async revokeSession(id: string, ctx: AuditContext): Promise<SessionView> {
    const session = await this.sessions.findById(id);
    if (!session) throw new ApiError('not_found', `No session with id ${id}`);
    if (!session.revokedAt) {
      await this.sessions.revoke(session, 'revoked_by_admin', ctx, new Date());
      this.auth.invalidateAll();
    }
    return toSessionView((await this.sessions.findById(id))!);
  }

  // Mints a short-lived personal token with the person's role (from an SSO session only).
  async createPersonalToken(
    principal: Principal,
    input: { name: string; ttlSec?: number },
    ctx: AuditContext,
  ): Promise<PersonalTokenView & { token: string }> {
    if (principal.kind !== 'user' || principal.via !== 'session' || !principal.person) {
      throw new ApiError(
        'forbidden',
        'Personal tokens are minted from a signed-in SSO session (automation uses /v1/tokens)',
      );
    }
    const max = this.config.PERSONAL_TOKEN_MAX_TTL_SEC;
    const ttl = input.ttlSec ?? Math.min(DEFAULT_PERSONAL_TOKEN_TTL_SEC, max);
    if (ttl > max) {
      throw new ApiError('validation_failed', `ttlSec must be at most ${max}`, [
        { path: '$.ttlSec', field: 'ttlSec', message: `at most ${max} seconds` },
      ]);
    }
    const token = newSecret(USER_TOKEN_PREFIX);
    const row = await this.sessions.createPersonalToken(
      {
        name: input.name,
        role: principal.role,
        tokenHash: hashSecret(token),
        prefix: secretPrefix(token),
        expiresAt: new Date(Date.now() + ttl * 1000),
        ownerIssuer: principal.person.issuer,
        ownerSubject: principal.person.subject,
        ownerEmail: principal.person.email,
        ownerName: principal.person.name,
        sessionId: principal.tokenId,
      },
      ctx,
    );
    return { ...toPersonalTokenView(row), token };
  }

  // The caller's own personal tokens.
  async listPersonalTokens(
    principal: Principal,
    query: { limit: number; cursor?: string },
  ): Promise<Page<PersonalTokenView>> {
    const person = principal.kind === 'user' ? principal.person : undefined;
    // A caller that is not a signed-in person (an automation token) has no personal tokens.
    if (!person) return { items: [], nextCursor: null };
    const rows = await this.sessions.listPersonalTokens(
      person.issuer,
      person.subject,
      query.limit + 1,
      decodeCursor('personal-tokens', query.cursor, createdAtIdKey),
    );
    return toPage('personal-tokens', rows, query.limit, toPersonalTokenView, (r) => ({
      t: r.createdAt.toISOString(),
      id: r.id,
    }));
  }

  // Revokes one of the caller's own personal tokens.
  async revokePersonalToken(principal: Principal, id: string, ctx: AuditContext): Promise<PersonalTokenView> {
    const person = principal.kind === 'user' ? principal.person : undefined;
    const row = person ? await this.sessions.revokePersonalToken(id, person.issuer, person.subject, ctx) : null;
    if (!row) throw new ApiError('not_found', `You have no personal token with id ${id}`);
    this.auth.invalidateAll();
    return toPersonalTokenView(row);
  }

  // A Set-Cookie value with this server's cookie attributes.
  private cookie(name: string, value: string, maxAgeSec: number): string {
    return serializeCookie(name, value, {
      maxAgeSec,
      path: '/',
      secure: this.config.SESSION_COOKIE_SECURE,
      sameSite: 'Lax',
    });
  }

  // The audit context of a browser request before anyone is signed in.
  private requestCtx(request: FastifyRequest): AuditContext {
    return {
      actorId: null,
      actorName: 'anonymous',
      role: 'anonymous',
      requestId: String(request.id),
      clientIp: request.ip ?? null,
    };
  }

  // An HTML page (errors of the browser flow), with a CSP that lets nothing run.
  private page(
    status: number,
    title: string,
    paragraphs: string[],
    link?: { href: string; text: string },
    setCookie?: string,
  ): BrowserResponse {
    return {
      status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': PAGE_CSP,
        'cache-control': 'no-store',
        ...(setCookie ? { 'set-cookie': setCookie } : {}),
      },
      body: messagePage(title, paragraphs, link),
    };
  }
}

// Public view of a session (never its secret or refresh token).
export function toSessionView(s: UserSession): SessionView {
  return {
    id: s.id,
    issuer: s.issuer,
    subject: s.subject,
    email: s.email,
    name: s.name,
    role: s.role,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    refreshedAt: s.refreshedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    revokedAt: s.revokedAt?.toISOString() ?? null,
    revokedReason: s.revokedReason,
    clientIp: s.clientIp,
    userAgent: s.userAgent,
  };
}

// Public view of a personal token.
function toPersonalTokenView(t: ApiToken): PersonalTokenView {
  return { ...toTokenView(t), sessionId: t.sessionId };
}
