// Authenticates requests by their SSO session cookie: idle and absolute timeouts, periodic re-check of the
// person's groups at the IdP (refresh token), and CSRF protection of cookie-authenticated writes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { UserSession } from '@prisma/client';
import type { FastifyRequest } from 'fastify';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { hashSecret, type Principal } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { parseCookies } from './cookies';
import { IdpRefusedError, OidcClientService } from './oidc-client.service';
import { groupsOf, roleFor } from './role-mapping';
import { personOf, SessionsRepository } from './sessions.repository';
import { KeyVault } from '../signing/key-vault.service';

/** The header a cookie-authenticated write must carry (the value /v1/me returns as `csrfToken`). */
export const CSRF_HEADER = 'x-csrf-token';
/** Requests that never change anything (no CSRF token needed). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The idle clock is moved at most this often per session (one write per half minute, not per request). */
const TOUCH_EVERY_MS = 30_000;
/** How long one instance may hold a session's refresh before another may try. */
const REFRESH_HOLD_MS = 30_000;

// The names of the session cookies: `__Host-` prefixed (host-only, Path=/, Secure) unless cookies are insecure.
export function cookieNames(secure: boolean): { session: string; login: string } {
  return secure
    ? { session: '__Host-hw_session', login: '__Host-hw_login' }
    : { session: 'hw_session', login: 'hw_login' };
}

// The CSRF token of a session: derived from its cookie secret, so only the cookie's holder can learn it.
export function csrfTokenOf(secret: string): string {
  return createHash('sha256').update(`hookwarden-csrf:${secret}`, 'utf8').digest('base64url');
}

// The audit context of work done on behalf of a session (no request: refresh, expiry).
export function sessionActor(s: UserSession, requestId: string | null, clientIp: string | null): AuditContext {
  return {
    actorId: s.id,
    actorName: s.email ?? s.name ?? s.subject,
    role: s.role,
    requestId,
    clientIp,
    person: { ...personOf(s), sessionId: s.id },
  };
}

@Injectable()
export class SessionAuthService {
  private readonly logger = new Logger('Sessions');
  readonly cookies: { session: string; login: string };
  /** Refreshes under way on this instance, by session id (concurrent requests share one). */
  private readonly refreshing = new Map<string, Promise<UserSession>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: SessionsRepository,
    private readonly oidc: OidcClientService,
    private readonly vault: KeyVault,
  ) {
    this.cookies = cookieNames(config.SESSION_COOKIE_SECURE);
  }

  // Seals a person's IdP refresh token for storage, under the KEK and bound to that person (issuer and subject).
  sealRefreshToken(token: string, person: { issuer: string; subject: string }): string {
    return this.vault.sealSecret(token, refreshTokenOwner(person));
  }

  // The refresh token a session stores, or null when it cannot be opened (the session must then sign in again).
  private openRefreshToken(session: UserSession): string | null {
    return session.refreshTokenEnc ? this.vault.openSecret(session.refreshTokenEnc, refreshTokenOwner(session)) : null;
  }

  // The session secret in the request's cookies, if any.
  secretOf(request: FastifyRequest): string | undefined {
    const value = parseCookies(request.headers.cookie).get(this.cookies.session);
    return value && /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : value ? '' : undefined;
  }

  // The state of the sign-in this browser started (the login cookie), if any.
  loginStateOf(request: FastifyRequest): string | undefined {
    const value = parseCookies(request.headers.cookie).get(this.cookies.login);
    return value && /^[A-Za-z0-9_-]{10,200}$/.test(value) ? value : undefined;
  }

  // Whether the request carries a session cookie (then it is authenticated by it, unless it has a bearer header).
  hasSession(request: FastifyRequest): boolean {
    return this.secretOf(request) !== undefined;
  }

  // The principal of a request's session cookie, or a 401 naming why; writes also need the CSRF token.
  async authenticate(request: FastifyRequest, now = new Date()): Promise<Principal> {
    const secret = this.secretOf(request);
    if (!secret) throw ended('Missing or invalid session cookie');
    let session = await this.sessions.findBySecretHash(hashSecret(secret));
    if (!session || session.revokedAt) throw ended('Your session has ended; sign in again');
    if (session.expiresAt <= now) throw ended('Your session has expired; sign in again');
    if (now.getTime() - session.lastSeenAt.getTime() > this.config.SESSION_IDLE_TIMEOUT_SEC * 1000) {
      await this.sessions.revoke(session, 'idle_timeout', sessionActor(session, String(request.id), null), now);
      throw ended('Your session ended after a period of inactivity; sign in again');
    }
    if (!SAFE_METHODS.has(request.method)) this.checkCsrf(request, secret);
    if (now.getTime() - session.refreshedAt.getTime() > this.config.SESSION_REFRESH_INTERVAL_SEC * 1000) {
      session = await this.refreshOnce(session, String(request.id), request.ip ?? null, now);
    }
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      void this.sessions.touch(session.id, now).catch(() => undefined);
    }
    return {
      kind: 'user',
      tokenId: session.id,
      name: session.email ?? session.name ?? session.subject,
      role: session.role,
      person: { ...personOf(session), sessionId: session.id },
      via: 'session',
    };
  }

  // A cookie-authenticated write must carry the session's CSRF token, and come from this origin if it names one.
  private checkCsrf(request: FastifyRequest, secret: string): void {
    const given = request.headers[CSRF_HEADER];
    const expected = Buffer.from(csrfTokenOf(secret));
    const actual = Buffer.from(typeof given === 'string' ? given : '');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
      throw new ApiError('forbidden', `Cookie-authenticated writes need the ${CSRF_HEADER} header from GET /v1/me`, [
        { field: `header.${CSRF_HEADER}`, message: 'missing or wrong CSRF token' },
      ]);
    }
    const origin = request.headers.origin;
    if (typeof origin === 'string' && origin !== 'null') {
      const host = request.headers.host;
      let sameHost = false;
      try {
        sameHost = new URL(origin).host === host;
      } catch {
        sameHost = false;
      }
      const allowed = this.config.OIDC_REDIRECT_URL ? new URL(this.config.OIDC_REDIRECT_URL).origin : null;
      if (!sameHost && origin !== allowed) {
        throw new ApiError('forbidden', `Cross-origin write refused (Origin ${origin.slice(0, 200)})`, [
          { field: 'header.origin', message: 'not this server' },
        ]);
      }
    } else if (origin === 'null') {
      throw new ApiError('forbidden', 'Cross-origin write refused (Origin null)', [
        { field: 'header.origin', message: 'opaque origin' },
      ]);
    }
  }

  // Refreshes a session once across concurrent requests of this instance.
  private refreshOnce(
    session: UserSession,
    requestId: string,
    clientIp: string | null,
    now: Date,
  ): Promise<UserSession> {
    let pending = this.refreshing.get(session.id);
    if (!pending) {
      pending = this.refresh(session, requestId, clientIp, now).finally(() => this.refreshing.delete(session.id));
      this.refreshing.set(session.id, pending);
    }
    return pending;
  }

  // Re-reads the person's groups at the IdP: a lost group revokes the session (and their tokens), a changed role
  // applies at once; an unreachable IdP is tolerated for one more refresh interval, then the session is refused.
  private async refresh(
    session: UserSession,
    requestId: string,
    clientIp: string | null,
    now: Date,
  ): Promise<UserSession> {
    const actor = sessionActor(session, requestId, clientIp);
    const grace = now.getTime() - session.refreshedAt.getTime() <= 2 * this.config.SESSION_REFRESH_INTERVAL_SEC * 1000;
    if (!(await this.sessions.claimRefresh(session.id, now, REFRESH_HOLD_MS))) {
      // Another instance is refreshing it; serve the current role while within the grace period.
      if (grace) return session;
      throw ended('Your session is being re-checked with the identity provider; retry in a moment');
    }
    const refreshToken = this.openRefreshToken(session);
    if (!refreshToken) {
      await this.sessions.revoke(session, 'reauthentication_required', actor, now);
      throw ended('Your session must be renewed with the identity provider; sign in again');
    }
    let identity;
    try {
      identity = await this.oidc.refresh(refreshToken, session.subject);
    } catch (err) {
      if (err instanceof IdpRefusedError) {
        await this.sessions.revoke(session, `idp_refused:${err.error}`.slice(0, 100), actor, now);
        throw ended('The identity provider no longer accepts your session; sign in again');
      }
      await this.sessions.releaseRefresh(session.id);
      this.logger.warn(`session refresh failed (IdP unreachable): ${(err as Error).message}`);
      if (grace) return session;
      throw new ApiError('unavailable', 'The identity provider cannot be reached to re-check your session', undefined, {
        'retry-after': '5',
      });
    }
    const groups = groupsOf(identity.claims, this.config.OIDC_GROUPS_CLAIM);
    const role = roleFor(groups, {
      adminGroups: this.config.OIDC_ADMIN_GROUPS,
      auditorGroups: this.config.OIDC_AUDITOR_GROUPS,
    });
    if (!role) {
      await this.sessions.revoke(session, 'no_mapped_group', actor, now, 'person');
      throw ended('You are no longer in an identity-provider group that grants a Hookwarden role');
    }
    return this.sessions.applyRefresh(
      session,
      {
        role,
        groups,
        email: identity.email ?? session.email,
        name: identity.name ?? session.name,
        // Sealed again under the current KEK (the IdP's new token, or the same one): a KEK rotation reaches every
        // live session within one refresh interval.
        refreshTokenEnc: this.sealRefreshToken(identity.refreshToken ?? refreshToken, session),
        idTokenHint: identity.idToken,
      },
      actor,
      now,
    );
  }
}

// What a sealed refresh token is bound to (its additional authenticated data): the person it was issued to.
function refreshTokenOwner(person: { issuer: string; subject: string }): string {
  return `sso-refresh-token:${person.issuer}\u0000${person.subject}`;
}

// The 401 of a session that cannot be used.
function ended(message: string): ApiError {
  return new ApiError('unauthorized', message, undefined, { 'www-authenticate': 'Bearer' });
}
