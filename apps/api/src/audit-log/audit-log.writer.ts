// Appends hash-chained admin audit entries inside the caller's transaction (one entry per change).
import { createHash } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';
import { Prisma } from '@prisma/client';
import type { AuditAction, AuditTargetOf } from './audit-actions';
import type { AuditDetailsOf } from './audit-details';

/** The hash the first entry of the chain links to. */
export const GENESIS_HASH = 'sha256:' + '0'.repeat(64);

export interface AuditContext {
  actorId: string | null;
  actorName: string;
  role: string;
  requestId?: string | null;
  clientIp?: string | null;
  /** The person behind the actor (SSO): recorded with the entry and covered by its hash. */
  person?: AuditPerson;
}

/** Who a person is at their IdP, and the session they acted in. */
export interface AuditPerson {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  sessionId: string | null;
}

/** One change to record: an action of the table with the target type and the details the tables give it. */
export type AuditChange<A extends AuditAction = AuditAction> = {
  [K in A]: {
    action: K;
    targetType: AuditTargetOf<K>;
    targetId?: string | null;
    beforeDigest?: string | null;
    afterDigest?: string | null;
    details: AuditDetailsOf<K>;
  };
}[A];

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
  /** Present only on entries made by a person signed in through SSO (older entries hash without it). */
  person?: AuditPerson;
  prevHash: string;
}

// The hash of one entry's content, including the previous entry's hash (the chain link).
export function auditEntryHash(input: AuditHashInput): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** Advisory lock key serializing appends so the chain has no forks. */
const AUDIT_LOCK_KEY = 0x4877_6175; // "Hwau"

/** The one row of audit_log_head. */
export const AUDIT_HEAD_ID = 1;

// Appends one entry to the chain and moves the head to it; call it with the transaction client of the change it
// records. It continues from the head even when the newest entries were removed, so the removal shows as a gap.
export async function appendAudit(tx: Prisma.TransactionClient, ctx: AuditContext, change: AuditChange): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`;
  const head = await tx.auditLogHead.findUnique({ where: { id: AUDIT_HEAD_ID }, select: { seq: true, hash: true } });
  const newest = await tx.auditLogEntry.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true, hash: true } });
  // The later of the two: the head when the newest rows were removed, the newest row if the head fell behind.
  const last = head && !(newest && newest.seq > head.seq) ? head : newest;
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
    details: change.details as Prisma.InputJsonObject,
    requestId: ctx.requestId ?? null,
    clientIp: ctx.clientIp ?? null,
  };
  const person = ctx.person
    ? {
        issuer: ctx.person.issuer,
        subject: ctx.person.subject,
        email: ctx.person.email,
        name: ctx.person.name,
        sessionId: ctx.person.sessionId,
      }
    : undefined;
  const hash = auditEntryHash({
    seq: seq.toString(),
    id,
    at: at.toISOString(),
    ...row,
    ...(person ? { person } : {}),
    prevHash,
  });
  await tx.auditLogEntry.create({
    data: { seq, id, at, ...row, ...(person ? { actorPerson: { ...person } } : {}), prevHash, hash },
  });
  await tx.auditLogHead.upsert({
    where: { id: AUDIT_HEAD_ID },
    create: { id: AUDIT_HEAD_ID, seq, hash },
    update: { seq, hash },
  });
}
