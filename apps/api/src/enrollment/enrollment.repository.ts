// Persistence of enrollment secrets and the enrollment transaction (secret use + endpoint upsert).
import { Injectable } from '@nestjs/common';
import { Prisma, type EnrollmentSecret } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import { DUPLICATE_MACHINE_ID, type DuplicateMachineIdDetails } from '../endpoints/admission';
import { enrollDecision, type KnownEndpoint } from './enroll-decision';

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
  /** The new key (SPKI PEM) and its id; its possession was proven by the caller. */
  publicKey: string;
  keyId: string;
  /** The endpoint the caller claims to be, with a check of its proof under a given public key (PEM). */
  previous?: { endpointId: string; verify: (publicKeyPem: string) => boolean };
}

export type EnrollResult =
  | { ok: true; endpointId: string; groupId: string; admission: 'active' | 'pending'; reenrolled: boolean }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'refused'; code: 'endpoint_revoked' | 'conflict'; message: string };

/** Columns the decision reads. */
const KNOWN = { id: true, groupId: true, machineId: true, admission: true, revokedAt: true, publicKey: true } as const;

// An endpoint row as the decision sees it.
function known(row: {
  id: string;
  groupId: string;
  machineId: string;
  admission: string;
  revokedAt: Date | null;
}): KnownEndpoint {
  return {
    id: row.id,
    groupId: row.groupId,
    machineId: row.machineId,
    admission: row.admission as KnownEndpoint['admission'],
    revoked: row.revokedAt !== null,
  };
}

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

  // Enrolls a machine in one transaction: locks the live secret and the machine id, decides (enrollDecision), then
  // creates, re-keys or makes a pending duplicate (with its finding) and consumes one use of the secret. A refusal
  // consumes nothing.
  async enroll(input: EnrollInput): Promise<EnrollResult> {
    return this.prisma.$transaction(async (tx) => {
      const live = await tx.$queryRaw<Array<{ id: string; group_id: string }>>(Prisma.sql`
        SELECT id, group_id::text AS group_id FROM enrollment_secrets
        WHERE secret_hash = ${input.secretHash} AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > now()) AND (max_uses IS NULL OR uses < max_uses)
        FOR UPDATE`);
      const secret = live[0];
      if (!secret) return { ok: false, reason: 'invalid' } as const;
      // Concurrent enrollments of one machine id are decided one after the other.
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${'enroll:' + input.machineId}))::text AS locked`;
      const taken = await tx.endpoint.findUnique({ where: { keyId: input.keyId }, select: { id: true } });
      if (taken && taken.id !== input.previous?.endpointId) {
        return { ok: false, reason: 'refused', code: 'conflict', message: 'This key is already enrolled' } as const;
      }
      let proven: KnownEndpoint | null = null;
      if (input.previous) {
        const row = await tx.endpoint.findUnique({ where: { id: input.previous.endpointId }, select: KNOWN });
        if (row?.publicKey && row.machineId === input.machineId && input.previous.verify(row.publicKey)) {
          proven = known(row);
        }
      }
      const holderRow =
        (await tx.endpoint.findFirst({
          where: { machineId: input.machineId, admission: 'active', revokedAt: null },
          select: KNOWN,
        })) ??
        (await tx.endpoint.findFirst({
          where: { machineId: input.machineId },
          orderBy: [{ enrolledAt: 'desc' }, { id: 'desc' }],
          select: KNOWN,
        }));
      const decision = enrollDecision({
        secretGroupId: secret.group_id,
        proven,
        holder: holderRow ? known(holderRow) : null,
      });
      if (decision.kind === 'refuse') {
        return { ok: false, reason: 'refused', code: decision.code, message: decision.message } as const;
      }
      await tx.$executeRaw`UPDATE enrollment_secrets SET uses = uses + 1 WHERE id = ${secret.id}::uuid`;
      const now = new Date();
      const fields = {
        hostname: input.hostname,
        platform: input.platform,
        agentVersion: input.agentVersion,
        publicKey: input.publicKey,
        keyId: input.keyId,
        keyAt: now,
        credentialHash: null,
        credentialAt: now,
      };
      const endpoint =
        decision.kind === 'rekey'
          ? await tx.endpoint.update({ where: { id: decision.endpoint.id }, data: fields })
          : await tx.endpoint.create({
              data: {
                ...fields,
                groupId: secret.group_id,
                machineId: input.machineId,
                ...(decision.kind === 'pending' ? { admission: 'pending', duplicateOf: decision.duplicateOf.id } : {}),
              },
            });
      if (decision.kind === 'pending') {
        await tx.hookRunFinding.create({
          data: {
            endpointId: endpoint.id,
            groupId: endpoint.groupId,
            kind: DUPLICATE_MACHINE_ID,
            details: {
              machineId: input.machineId,
              duplicateOf: decision.duplicateOf.id,
              hostname: input.hostname,
              platform: input.platform,
              duplicateOfGroupId: decision.duplicateOf.groupId,
              reason: decision.reason,
              enrollmentSecretId: secret.id,
            } satisfies DuplicateMachineIdDetails & Record<string, string>,
          },
        });
      }
      const actor = { actorId: endpoint.id, actorName: `endpoint:${endpoint.id}`, role: 'agent' };
      const enrolled = {
        groupId: endpoint.groupId,
        hostname: endpoint.hostname,
        enrollmentSecretId: secret.id,
        keyId: input.keyId,
      };
      await appendAudit(
        tx,
        actor,
        decision.kind === 'pending'
          ? {
              action: 'endpoint.enroll_pending',
              targetType: 'endpoint',
              targetId: endpoint.id,
              details: {
                ...enrolled,
                duplicateOf: decision.duplicateOf.id,
                reason: decision.reason,
                machineId: input.machineId,
              },
            }
          : {
              action: decision.kind === 'rekey' ? 'endpoint.reenroll' : 'endpoint.enroll',
              targetType: 'endpoint',
              targetId: endpoint.id,
              details: enrolled,
            },
      );
      return {
        ok: true,
        endpointId: endpoint.id,
        groupId: endpoint.groupId,
        admission: endpoint.admission === 'pending' ? 'pending' : 'active',
        reenrolled: decision.kind === 'rekey',
      } as const;
    });
  }

  // Registers the first key of a bearer-enrolled endpoint and clears its bearer credential (one conditional UPDATE);
  // the same key again is a success (a retry), another key when one is set is a conflict.
  async registerKey(
    endpointId: string,
    publicKey: string,
    keyId: string,
  ): Promise<'registered' | 'same' | 'conflict' | 'not_found'> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.endpoint.findUnique({ where: { id: endpointId }, select: { keyId: true, revokedAt: true } });
      if (!row || row.revokedAt) return 'not_found' as const;
      if (row.keyId) return row.keyId === keyId ? ('same' as const) : ('conflict' as const);
      const taken = await tx.endpoint.findUnique({ where: { keyId }, select: { id: true } });
      if (taken) return 'conflict' as const;
      await tx.endpoint.update({
        where: { id: endpointId },
        data: { publicKey, keyId, keyAt: new Date(), credentialHash: null, credentialAt: new Date() },
      });
      await appendAudit(
        tx,
        { actorId: endpointId, actorName: `endpoint:${endpointId}`, role: 'agent' },
        { action: 'endpoint.key_migrate', targetType: 'endpoint', targetId: endpointId, details: { keyId } },
      );
      return 'registered' as const;
    });
  }
}
