// Persistence of enrollment secrets and the enrollment transaction (secret use + endpoint upsert).
import { Injectable } from '@nestjs/common';
import { Prisma, type EnrollmentSecret } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';

export interface NewEnrollmentSecret {
  groupId: string;
  name: string;
  secretHash: string;
  prefix: string;
  maxUses: number | null;
  expiresAt: Date | null;
  createdBy: string | null;
}

export interface EnrollInput {
  secretHash: string;
  hostname: string;
  platform: string;
  machineId: string;
  agentVersion: string;
  credentialHash: string;
}

export type EnrollResult =
  { ok: true; endpointId: string; groupId: string; reenrolled: boolean } | { ok: false; reason: 'invalid' };

@Injectable()
export class EnrollmentRepository {
  constructor(private readonly prisma: PrismaService) {}

  // True when the group exists.
  async groupExists(groupId: string): Promise<boolean> {
    return (await this.prisma.group.count({ where: { id: groupId } })) > 0;
  }

  // Inserts a secret with its audit entry.
  async create(data: NewEnrollmentSecret, ctx: AuditContext): Promise<EnrollmentSecret> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.enrollmentSecret.create({ data });
      await appendAudit(tx, ctx, {
        action: 'enrollment_secret.create',
        targetType: 'enrollment_secret',
        targetId: row.id,
        details: {
          groupId: row.groupId,
          name: row.name,
          maxUses: row.maxUses,
          expiresAt: row.expiresAt?.toISOString() ?? null,
        },
      });
      return row;
    });
  }

  // Lists a group's secrets, newest first.
  async list(groupId: string): Promise<EnrollmentSecret[]> {
    return this.prisma.enrollmentSecret.findMany({
      where: { groupId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
  }

  // Revokes a secret (idempotent) with its audit entry; null when it does not exist.
  async revoke(id: string, ctx: AuditContext): Promise<EnrollmentSecret | null> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.enrollmentSecret.findUnique({ where: { id } });
      if (!existing) return null;
      if (existing.revokedAt) return existing;
      const row = await tx.enrollmentSecret.update({ where: { id }, data: { revokedAt: new Date() } });
      await appendAudit(tx, ctx, {
        action: 'enrollment_secret.revoke',
        targetType: 'enrollment_secret',
        targetId: id,
        details: { groupId: row.groupId, name: row.name },
      });
      return row;
    });
  }

  // Consumes one use of a live secret atomically (one conditional UPDATE) and creates or re-keys the endpoint.
  async enroll(input: EnrollInput): Promise<EnrollResult> {
    return this.prisma.$transaction(async (tx) => {
      const used = await tx.$queryRaw<Array<{ id: string; group_id: string }>>(Prisma.sql`
        UPDATE enrollment_secrets SET uses = uses + 1
        WHERE secret_hash = ${input.secretHash} AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > now()) AND (max_uses IS NULL OR uses < max_uses)
        RETURNING id, group_id::text AS group_id`);
      const secret = used[0];
      if (!secret) return { ok: false, reason: 'invalid' } as const;
      const now = new Date();
      const existing = await tx.endpoint.findFirst({
        where: { machineId: input.machineId, admission: 'active' },
        orderBy: { enrolledAt: 'desc' },
        select: { id: true, groupId: true },
      });
      const fields = {
        groupId: secret.group_id,
        hostname: input.hostname,
        platform: input.platform,
        agentVersion: input.agentVersion,
        credentialHash: input.credentialHash,
        credentialAt: now,
        revokedAt: null,
      };
      // Re-enrolling into another group is a move: the assignment epoch goes up (old statements become replays).
      const moved = !!existing && existing.groupId !== secret.group_id;
      const endpoint = existing
        ? await tx.endpoint.update({
            where: { id: existing.id },
            data: { ...fields, ...(moved ? { assignmentEpoch: { increment: 1 } } : {}) },
          })
        : await tx.endpoint.create({ data: { ...fields, machineId: input.machineId } });
      await appendAudit(
        tx,
        { actorId: endpoint.id, actorName: `endpoint:${endpoint.id}`, role: 'agent' },
        {
          action: existing ? 'endpoint.reenroll' : 'endpoint.enroll',
          targetType: 'endpoint',
          targetId: endpoint.id,
          details: {
            groupId: endpoint.groupId,
            hostname: endpoint.hostname,
            enrollmentSecretId: secret.id,
            ...(moved ? { fromGroupId: existing.groupId, assignmentEpoch: endpoint.assignmentEpoch } : {}),
          },
        },
      );
      return { ok: true, endpointId: endpoint.id, groupId: endpoint.groupId, reenrolled: !!existing } as const;
    });
  }
}
