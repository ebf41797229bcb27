// Persistence of enrolled endpoints for the admin routes.
import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import { type AdmissionAction, admissionRefusal, DUPLICATE_MACHINE_ID, TRANSITIONS } from './admission';

const WITH_REFS = {
  group: { select: { name: true } },
} satisfies Prisma.EndpointInclude;

export type EndpointRow = Prisma.EndpointGetPayload<{ include: typeof WITH_REFS }>;

export interface EndpointFilter {
  groupId?: string;
  state?: string;
  platform?: string;
  admission?: string;
}

/** What the duplicated endpoint of a pending one looks like in its view. */
export interface DuplicateSummary {
  id: string;
  hostname: string;
  groupId: string;
  groupName: string;
  lastSeenAt: Date | null;
  admission: string;
  revokedAt: Date | null;
}

/** The outcome of an admin's admission decision. */
export type DecisionResult =
  | { ok: true; row: EndpointRow; retired: string | null }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'wrong_state'; message: string; admission: string; revoked: boolean }
  | { ok: false; reason: 'machine_id_taken'; holder: string | null };

@Injectable()
export class EndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // One page of endpoints ordered by enrollment time then id (stable), after an optional keyset cursor.
  async list(filter: EndpointFilter, limit: number, after?: { enrolledAt: Date; id: string }): Promise<EndpointRow[]> {
    const where: Prisma.EndpointWhereInput = {};
    if (filter.groupId) where.groupId = filter.groupId;
    if (filter.platform) where.platform = filter.platform;
    if (filter.admission) where.admission = filter.admission;
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

  // The endpoints the given pending ones duplicate, by id (one query).
  async duplicatesOf(ids: string[]): Promise<Map<string, DuplicateSummary>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.endpoint.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        hostname: true,
        groupId: true,
        lastSeenAt: true,
        admission: true,
        revokedAt: true,
        group: { select: { name: true } },
      },
    });
    return new Map(rows.map(({ group, ...r }) => [r.id, { ...r, groupName: group.name }]));
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

  // An admin's decision on an endpoint, in one transaction under row locks on every endpoint sharing its machine id
  // (so two decisions about one machine id run one after the other): approve (pending → active; the endpoint it
  // duplicates is retired first, freeing the machine id's one admitted slot, and loses its credential), reject
  // (pending → rejected) or readmit (revoked → not revoked). The duplicate finding is resolved; audited.
  async decide(id: string, action: AdmissionAction, ctx: AuditContext): Promise<DecisionResult> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<Array<{ id: string }>>(Prisma.sql`
          SELECT id::text AS id FROM endpoints
           WHERE machine_id = (SELECT machine_id FROM endpoints WHERE id = ${id}::uuid)
           ORDER BY id FOR UPDATE`);
        if (!locked.some((r) => r.id === id)) return { ok: false, reason: 'not_found' } as const;
        const existing = await tx.endpoint.findUniqueOrThrow({ where: { id }, include: WITH_REFS });
        const refused = admissionRefusal(action, id, existing);
        if (refused) {
          const revoked = existing.revokedAt !== null;
          return {
            ok: false,
            reason: 'wrong_state',
            message: refused,
            admission: existing.admission,
            revoked,
          } as const;
        }
        let retired: string | null = null;
        if (action !== 'reject') {
          const old = action === 'approve' ? existing.duplicateOf : null;
          // Whoever else holds the machine id's admitted slot (the duplicated endpoint is about to give it up).
          const holder = await tx.endpoint.findFirst({
            where: {
              machineId: existing.machineId,
              admission: 'active',
              revokedAt: null,
              id: { notIn: [id, ...(old ? [old] : [])] },
            },
            select: { id: true },
          });
          if (holder) return { ok: false, reason: 'machine_id_taken', holder: holder.id } as const;
          if (old) {
            const replaced = await tx.endpoint.updateMany({
              where: { id: old, admission: 'active' },
              data: { admission: 'retired', credentialHash: null },
            });
            if (replaced.count > 0) retired = old;
          }
        }
        const now = new Date();
        const row = await tx.endpoint.update({
          where: { id },
          data:
            action === 'readmit'
              ? { revokedAt: null }
              : { admission: TRANSITIONS[action].to, ...(action === 'reject' ? { credentialHash: null } : {}) },
          include: WITH_REFS,
        });
        if (action !== 'readmit') {
          await tx.hookRunFinding.updateMany({
            where: { endpointId: id, kind: DUPLICATE_MACHINE_ID, resolvedAt: null },
            data: { resolvedAt: now },
          });
        }
        const which = { hostname: row.hostname, groupId: row.groupId, machineId: row.machineId };
        await appendAudit(
          tx,
          ctx,
          action === 'readmit'
            ? {
                action: 'endpoint.readmit',
                targetType: 'endpoint',
                targetId: id,
                details: { ...which, revokedAt: existing.revokedAt?.toISOString() ?? null },
              }
            : {
                action: `endpoint.${action}`,
                targetType: 'endpoint',
                targetId: id,
                details: { ...which, duplicateOf: existing.duplicateOf, retiredEndpointId: retired },
              },
        );
        if (retired) {
          await appendAudit(tx, ctx, {
            action: 'endpoint.retire',
            targetType: 'endpoint',
            targetId: retired,
            details: { replacedBy: id, machineId: row.machineId },
          });
        }
        return { ok: true, row, retired } as const;
      });
    } catch (err) {
      // Another decision or enrollment took the machine id's admitted slot between our check and our update.
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
        return { ok: false, reason: 'machine_id_taken', holder: null };
      }
      throw err;
    }
  }
}
