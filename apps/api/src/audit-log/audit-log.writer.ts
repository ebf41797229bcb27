// Appends hash-chained admin audit entries inside the caller's transaction (one entry per change).
import { createHash } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';
import { Prisma } from '@prisma/client';

/** The hash the first entry of the chain links to. */
export const GENESIS_HASH = 'sha256:' + '0'.repeat(64);

export interface AuditContext {
  actorId: string | null;
  actorName: string;
  role: string;
  requestId?: string | null;
  clientIp?: string | null;
}

export interface AuditChange {
  action: string;
  targetType: string;
  targetId?: string | null;
  beforeDigest?: string | null;
  afterDigest?: string | null;
  details?: Prisma.InputJsonValue;
}

export interface AuditHashInput {
  seq: string;
  id: string;
  at: string;
  actorId: string | null;
  actorName: string;
  role: string;
  action: string;
  targetType: string;
  targetId: string | null;
  beforeDigest: string | null;
  afterDigest: string | null;
  details: unknown;
  requestId: string | null;
  clientIp: string | null;
  prevHash: string;
}

// The hash of one entry's content, including the previous entry's hash (the chain link).
export function auditEntryHash(input: AuditHashInput): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** Advisory lock key serializing appends so the chain has no forks. */
const AUDIT_LOCK_KEY = 0x4877_6175; // "Hwau"

// Appends one entry to the chain; call it with the transaction client of the change it records.
export async function appendAudit(tx: Prisma.TransactionClient, ctx: AuditContext, change: AuditChange): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`;
  const last = await tx.auditLogEntry.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true, hash: true } });
  const prevHash = last?.hash ?? GENESIS_HASH;
  const seq = (last?.seq ?? 0n) + 1n;
  const id = crypto.randomUUID();
  const at = new Date();
  const row = {
    actorId: ctx.actorId,
    actorName: ctx.actorName,
    role: ctx.role,
    action: change.action,
    targetType: change.targetType,
    targetId: change.targetId ?? null,
    beforeDigest: change.beforeDigest ?? null,
    afterDigest: change.afterDigest ?? null,
    details: change.details ?? {},
    requestId: ctx.requestId ?? null,
    clientIp: ctx.clientIp ?? null,
  };
  const hash = auditEntryHash({ seq: seq.toString(), id, at: at.toISOString(), ...row, prevHash });
  await tx.auditLogEntry.create({ data: { seq, id, at, ...row, prevHash, hash } });
}
