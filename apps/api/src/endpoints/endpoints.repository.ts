// Persistence of enrolled endpoints for the admin routes.
import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';

const WITH_REFS = {
  group: { select: { name: true } },
} satisfies Prisma.EndpointInclude;

export type EndpointRow = Prisma.EndpointGetPayload<{ include: typeof WITH_REFS }>;

export interface EndpointFilter {
  groupId?: string;
  state?: string;
  platform?: string;
}

@Injectable()
export class EndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // One page of endpoints ordered by enrollment time then id (stable), after an optional keyset cursor.
  async list(filter: EndpointFilter, limit: number, after?: { enrolledAt: Date; id: string }): Promise<EndpointRow[]> {
    const where: Prisma.EndpointWhereInput = {};
    if (filter.groupId) where.groupId = filter.groupId;
    if (filter.platform) where.platform = filter.platform;
    if (filter.state === 'revoked') where.revokedAt = { not: null };
    else if (filter.state) {
      where.state = filter.state;
      where.revokedAt = null;
    }
    if (after) {
      where.OR = [{ enrolledAt: { gt: after.enrolledAt } }, { enrolledAt: after.enrolledAt, id: { gt: after.id } }];
    }
    return this.prisma.endpoint.findMany({
      where,
      include: WITH_REFS,
      orderBy: [{ enrolledAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  // One endpoint, or null.
  async get(id: string): Promise<EndpointRow | null> {
    return this.prisma.endpoint.findUnique({ where: { id }, include: WITH_REFS });
  }

  // Policy version numbers of the given releases.
  async versionsOfReleases(releaseIds: string[]): Promise<Map<string, number>> {
    if (releaseIds.length === 0) return new Map();
    const rows = await this.prisma.release.findMany({
      where: { id: { in: releaseIds } },
      select: { id: true, policyVersion: { select: { number: true } } },
    });
    return new Map(rows.map((r) => [r.id, r.policyVersion.number]));
  }

  // Revokes an endpoint (idempotent) with its audit entry; null when it does not exist.
  async revoke(id: string, ctx: AuditContext): Promise<EndpointRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.endpoint.findUnique({ where: { id }, include: WITH_REFS });
      if (!existing) return null;
      if (existing.revokedAt) return existing;
      const row = await tx.endpoint.update({ where: { id }, data: { revokedAt: new Date() }, include: WITH_REFS });
      await appendAudit(tx, ctx, {
        action: 'endpoint.revoke',
        targetType: 'endpoint',
        targetId: id,
        details: { hostname: row.hostname, groupId: row.groupId },
      });
      return row;
    });
  }

  // The endpoint's group and assignment epoch (for its signed assignment statement).
  async assignmentOf(id: string): Promise<{ groupId: string; assignmentEpoch: number; revokedAt: Date | null } | null> {
    return this.prisma.endpoint.findUnique({
      where: { id },
      select: { groupId: true, assignmentEpoch: true, revokedAt: true },
    });
  }

  // Moves an endpoint to another group (epoch + 1), audited; a move to its own group changes nothing.
  async move(
    id: string,
    groupId: string,
    ctx: AuditContext,
  ): Promise<{ row: EndpointRow; moved: boolean } | 'no_endpoint' | 'no_group'> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.endpoint.findUnique({ where: { id }, include: WITH_REFS });
      if (!existing) return 'no_endpoint' as const;
      if (existing.groupId === groupId) return { row: existing, moved: false };
      const group = await tx.group.findUnique({ where: { id: groupId }, select: { id: true } });
      if (!group) return 'no_group' as const;
      const row = await tx.endpoint.update({
        where: { id },
        data: { groupId, assignmentEpoch: { increment: 1 } },
        include: WITH_REFS,
      });
      // Its inventoried hooks count in the new group's fleet views and previews at once (not at its next report).
      await tx.endpointInventoryHook.updateMany({ where: { endpointId: id }, data: { groupId } });
      await appendAudit(tx, ctx, {
        action: 'endpoint.move',
        targetType: 'endpoint',
        targetId: id,
        details: {
          hostname: row.hostname,
          fromGroupId: existing.groupId,
          toGroupId: groupId,
          assignmentEpoch: row.assignmentEpoch,
        },
      });
      return { row, moved: true };
    });
  }
}
