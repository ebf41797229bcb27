// Persistence of SSO sessions, in-flight authorization requests and personal tokens, with their audit entries.
import { Injectable } from '@nestjs/common';
import type { ApiToken, OidcLogin, Prisma, Role, UserSession } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import type { AuditDetailsOf } from '../audit-log/audit-details';
import { afterCreatedAtId, type CreatedAtIdKey } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';

/** An authorization request is honoured for this long. */
export const LOGIN_TTL_MS = 10 * 60_000;

export interface NewSession {
  secretHash: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  groups: string[];
  refreshTokenEnc: string | null;
  idTokenHint: string | null;
  expiresAt: Date;
  clientIp: string | null;
  userAgent: string | null;
}

export interface SessionFilter {
  active?: boolean;
  subject?: string;
}

export interface RefreshedIdentity {
  role: Role;
  groups: string[];
  email: string | null;
  name: string | null;
  refreshTokenEnc: string | null;
  idTokenHint: string | null;
}

export interface NewPersonalToken {
  name: string;
  role: Role;
  tokenHash: string;
  prefix: string;
  expiresAt: Date;
  ownerIssuer: string;
  ownerSubject: string;
  ownerEmail: string | null;
  ownerName: string | null;
  sessionId: string;
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Stores an authorization request (and drops ones too old to be completed).
  async createLogin(login: { state: string; nonce: string; codeVerifier: string; returnTo: string }): Promise<void> {
    await this.prisma.oidcLogin.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - LOGIN_TTL_MS) } } });
    await this.prisma.oidcLogin.create({ data: login });
  }

  // Takes an authorization request by its state, once: a second callback with the same state finds nothing.
  async consumeLogin(state: string): Promise<OidcLogin | null> {
    const rows = await this.prisma.oidcLogin.findMany({ where: { state }, take: 1 });
    const row = rows[0];
    if (!row) return null;
    const { count } = await this.prisma.oidcLogin.deleteMany({ where: { id: row.id } });
    if (count !== 1) return null;
    return row.createdAt.getTime() >= Date.now() - LOGIN_TTL_MS ? row : null;
  }

  // Creates a session and its audit entry in one transaction.
  async createSession(session: NewSession, ctx: AuditContext): Promise<UserSession> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.userSession.create({ data: { ...session, groups: session.groups } });
      await appendAudit(
        tx,
        { ...ctx, person: { ...personOf(row), sessionId: row.id }, actorId: row.id },
        {
          action: 'session.create',
          targetType: 'session',
          targetId: row.id,
          details: { role: row.role, groups: session.groups.slice(0, 50), expiresAt: row.expiresAt.toISOString() },
        },
      );
      return row;
    });
  }

  // Records a refused sign-in (a person with no mapped group, or an IdP that failed verification).
  async recordRefusal(ctx: AuditContext, details: AuditDetailsOf<'session.refuse'>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await appendAudit(tx, ctx, { action: 'session.refuse', targetType: 'session', details });
    });
  }

  // Finds a session by the hash of its cookie secret.
  findBySecretHash(secretHash: string): Promise<UserSession | null> {
    return this.prisma.userSession.findUnique({ where: { secretHash } });
  }

  // Finds a session by id.
  findById(id: string): Promise<UserSession | null> {
    return this.prisma.userSession.findUnique({ where: { id } });
  }

  // Moves the idle clock of a session forward.
  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.userSession.updateMany({ where: { id, revokedAt: null }, data: { lastSeenAt: at } });
  }

  // Claims the right to refresh a session (one request at a time across instances); false when another holds it.
  async claimRefresh(id: string, now: Date, holdMs: number): Promise<boolean> {
    const { count } = await this.prisma.userSession.updateMany({
      where: { id, revokedAt: null, OR: [{ refreshingUntil: null }, { refreshingUntil: { lt: now } }] },
      data: { refreshingUntil: new Date(now.getTime() + holdMs) },
    });
    return count === 1;
  }

  // Releases a refresh claim without changing the session (the IdP could not be reached).
  async releaseRefresh(id: string): Promise<void> {
    await this.prisma.userSession.updateMany({ where: { id }, data: { refreshingUntil: null } });
  }

  // Stores what a refresh learned; when the role changed, audits it and revokes the person's personal tokens that
  // carry more than the new role.
  async applyRefresh(
    session: UserSession,
    next: RefreshedIdentity,
    ctx: AuditContext,
    now: Date,
  ): Promise<UserSession> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.userSession.update({
        where: { id: session.id },
        data: {
          role: next.role,
          groups: next.groups,
          email: next.email,
          name: next.name,
          refreshTokenEnc: next.refreshTokenEnc,
          idTokenHint: next.idTokenHint ?? session.idTokenHint,
          refreshedAt: now,
          refreshingUntil: null,
        },
      });
      if (row.role !== session.role) {
        await appendAudit(tx, ctx, {
          action: 'session.role_change',
          targetType: 'session',
          targetId: row.id,
          details: { from: session.role, to: row.role },
        });
        if (row.role === 'auditor') {
          await tx.apiToken.updateMany({
            where: { ownerIssuer: row.issuer, ownerSubject: row.subject, role: 'admin', revokedAt: null },
            data: { revokedAt: now },
          });
        }
      }
      return row;
    });
  }

  // Ends a session (and, with `cascade`, every session and personal token of the person); audited.
  async revoke(
    session: UserSession,
    reason: string,
    ctx: AuditContext,
    now: Date,
    cascade: 'session' | 'person' = 'session',
  ): Promise<{ tokensRevoked: number }> {
    return this.prisma.$transaction(async (tx) => {
      const person = { ownerIssuer: session.issuer, ownerSubject: session.subject };
      if (cascade === 'person') {
        await tx.userSession.updateMany({
          where: { issuer: session.issuer, subject: session.subject, revokedAt: null },
          data: { revokedAt: now, revokedReason: reason, refreshingUntil: null },
        });
      } else {
        await tx.userSession.updateMany({
          where: { id: session.id, revokedAt: null },
          data: { revokedAt: now, revokedReason: reason, refreshingUntil: null },
        });
      }
      const tokens = await tx.apiToken.updateMany({
        where: { ...(cascade === 'person' ? person : { sessionId: session.id }), revokedAt: null },
        data: { revokedAt: now },
      });
      await appendAudit(tx, ctx, {
        action: 'session.revoke',
        targetType: 'session',
        targetId: session.id,
        details: { reason, scope: cascade, tokensRevoked: tokens.count },
      });
      return { tokensRevoked: tokens.count };
    });
  }

  // Lists sessions newest first, after an optional keyset cursor.
  list(filter: SessionFilter, take: number, after?: CreatedAtIdKey): Promise<UserSession[]> {
    const now = new Date();
    const where: Prisma.UserSessionWhereInput[] = [afterCreatedAtId(after)];
    if (filter.subject) where.push({ subject: filter.subject });
    if (filter.active === true) where.push({ revokedAt: null, expiresAt: { gt: now } });
    if (filter.active === false) where.push({ OR: [{ revokedAt: { not: null } }, { expiresAt: { lte: now } }] });
    return this.prisma.userSession.findMany({
      where: { AND: where },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  // Creates a personal token and its audit entry.
  async createPersonalToken(token: NewPersonalToken, ctx: AuditContext): Promise<ApiToken> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.apiToken.create({ data: { ...token, createdBy: ctx.actorName } });
      await appendAudit(tx, ctx, {
        action: 'token.create_personal',
        targetType: 'token',
        targetId: row.id,
        details: { name: row.name, role: row.role, expiresAt: token.expiresAt.toISOString() },
      });
      return row;
    });
  }

  // The personal tokens of a person, newest first.
  listPersonalTokens(issuer: string, subject: string, take: number, after?: CreatedAtIdKey): Promise<ApiToken[]> {
    return this.prisma.apiToken.findMany({
      where: { AND: [afterCreatedAtId(after), { ownerIssuer: issuer, ownerSubject: subject }] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  // Revokes a person's own personal token; null when the token is not theirs.
  async revokePersonalToken(id: string, issuer: string, subject: string, ctx: AuditContext): Promise<ApiToken | null> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.apiToken.findFirst({ where: { id, ownerIssuer: issuer, ownerSubject: subject } });
      if (!row) return null;
      if (row.revokedAt) return row;
      const updated = await tx.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
      await appendAudit(tx, ctx, {
        action: 'token.revoke',
        targetType: 'token',
        targetId: id,
        details: { name: row.name },
      });
      return updated;
    });
  }

  // Finds an API token (for /v1/me on a bearer token).
  findToken(id: string): Promise<ApiToken | null> {
    return this.prisma.apiToken.findUnique({ where: { id } });
  }
}

// The person recorded in audit entries for a session row.
export function personOf(s: UserSession): {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
} {
  return { issuer: s.issuer, subject: s.subject, email: s.email, name: s.name };
}
