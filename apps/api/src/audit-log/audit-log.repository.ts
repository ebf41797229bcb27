// Reads of the admin audit log (writes go through appendAudit inside each change's transaction).
import { Injectable } from '@nestjs/common';
import { type AuditLogEntry, Prisma } from '@prisma/client';
import { ReadPrismaService } from '../prisma/prisma.service';
import type { AuditFilter } from './audit-log.dto';
import { AUDIT_HEAD_ID } from './audit-log.writer';

/** A position in the chain. */
export interface ChainPoint {
  seq: bigint;
  hash: string;
}

@Injectable()
export class AuditLogRepository {
  /** Auditor reads: on the read pool. */
  constructor(private readonly prisma: ReadPrismaService) {}

  // One page of entries matching the filter, newest first, before an optional sequence number.
  async list(filter: AuditFilter, take: number, beforeSeq?: bigint): Promise<AuditLogEntry[]> {
    return this.prisma.auditLogEntry.findMany({
      where: { AND: [whereOf(filter), beforeSeq !== undefined ? { seq: { lt: beforeSeq } } : {}] },
      orderBy: { seq: 'desc' },
      take,
    });
  }

  // The recorded end of the chain (audit_log_head) and its newest entry, read in one snapshot (null when absent).
  async ends(): Promise<{ head: ChainPoint | null; newest: ChainPoint | null }> {
    const select = { seq: true, hash: true } as const;
    const [head, newest] = await this.prisma.$transaction(
      [
        this.prisma.auditLogHead.findUnique({ where: { id: AUDIT_HEAD_ID }, select }),
        this.prisma.auditLogEntry.findFirst({ orderBy: { seq: 'desc' }, select }),
      ],
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
    );
    return { head, newest };
  }

  // Entries matching the filter after a sequence number, oldest first (for exports and verification).
  async chunkAfter(filter: AuditFilter, afterSeq: bigint, take: number): Promise<AuditLogEntry[]> {
    return this.prisma.auditLogEntry.findMany({
      where: { AND: [whereOf(filter), { seq: { gt: afterSeq } }] },
      orderBy: { seq: 'asc' },
      take,
    });
  }
}

// Prisma `where` for the list filters.
function whereOf(f: AuditFilter): Prisma.AuditLogEntryWhereInput {
  const and: Prisma.AuditLogEntryWhereInput[] = [];
  if (f.action) and.push({ action: f.action });
  if (f.actionPrefix) and.push({ action: { startsWith: f.actionPrefix } });
  if (f.actor) and.push({ OR: [{ actorId: f.actor }, { actorName: f.actor }] });
  if (f.targetType) and.push({ targetType: f.targetType });
  if (f.targetId) and.push({ targetId: f.targetId });
  if (f.from) and.push({ at: { gte: new Date(f.from) } });
  if (f.to) and.push({ at: { lt: new Date(f.to) } });
  return { AND: and };
}
