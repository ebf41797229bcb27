// Persistence of API tokens (hashes only) and their audit entries.
import { Injectable } from '@nestjs/common';
import type { ApiToken, Prisma, Role } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { afterCreatedAtId, type CreatedAtIdKey } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';

export interface TokenFilter {
  role?: Role;
  active?: boolean;
}

export interface NewToken {
  name: string;
  role: Role;
  tokenHash: string;
  prefix: string;
  expiresAt: Date | null;
  createdBy: string | null;
}

@Injectable()
export class TokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Inserts a token and its audit entry in one transaction.
  async create(token: NewToken, ctx: AuditContext): Promise<ApiToken> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.apiToken.create({ data: token });
      await appendAudit(tx, ctx, {
        action: 'token.create',
        targetType: 'token',
        targetId: row.id,
        details: { name: row.name, role: row.role, expiresAt: row.expiresAt?.toISOString() ?? null },
      });
      return row;
    });
  }

  // Creates the first admin token only if no token exists yet (serialized by an advisory lock).
  async createIfNone(token: NewToken, ctx: AuditContext): Promise<ApiToken | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242001)`;
      if ((await tx.apiToken.count()) > 0) return null;
      const row = await tx.apiToken.create({ data: token });
      await appendAudit(tx, ctx, {
        action: 'token.bootstrap',
        targetType: 'token',
        targetId: row.id,
        details: { name: row.name, role: row.role },
      });
      return row;
    });
  }

  // Lists tokens newest first, after an optional keyset cursor (fetches `take` rows).
  async list(filter: TokenFilter, take: number, after?: CreatedAtIdKey): Promise<ApiToken[]> {
    const now = new Date();
    const where: Prisma.ApiTokenWhereInput[] = [afterCreatedAtId(after)];
    if (filter.role) where.push({ role: filter.role });
    if (filter.active === true) {
      where.push({ revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });
    } else if (filter.active === false) {
      where.push({ OR: [{ revokedAt: { not: null } }, { expiresAt: { lte: now } }] });
    }
    return this.prisma.apiToken.findMany({
      where: { AND: where },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  // Marks a token revoked (idempotent) with its audit entry; null when it does not exist.
  async revoke(id: string, ctx: AuditContext, now: Date): Promise<ApiToken | null> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.apiToken.findUnique({ where: { id } });
      if (!existing) return null;
      if (existing.revokedAt) return existing;
      const row = await tx.apiToken.update({ where: { id }, data: { revokedAt: now } });
      await appendAudit(tx, ctx, {
        action: 'token.revoke',
        targetType: 'token',
        targetId: id,
        details: { name: row.name },
      });
      return row;
    });
  }
}
