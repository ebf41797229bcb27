// Partition DDL for hook_runs: create months ahead, drop months past retention (each drop audited).
import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';
import { appendAudit } from '../audit-log/audit-log.writer';
import { PgPools } from '../database/pg-pools';
import { ensurePartition, listPartitions, monthStart, partitionName } from '../database/partitions';

export const SYSTEM_ACTOR = { actorId: null, actorName: 'system:maintenance', role: 'system' } as const;

@Injectable()
export class MaintenanceRepository {
  constructor(
    private readonly pools: PgPools,
    private readonly prisma: PrismaService,
  ) {}

  // Creates the partitions of this month and the next `ahead` months; returns the names created.
  async ensurePartitions(now: Date, ahead: number): Promise<string[]> {
    const created: string[] = [];
    for (let i = 0; i <= ahead; i++) {
      const start = monthStart(now, i);
      if (await ensurePartition(this.pools.write, start)) created.push(partitionName(start));
    }
    return created;
  }

  // Drops every partition whose whole month ended before `cutoff`, recording each drop in the admin audit log.
  async dropPartitionsBefore(cutoff: Date, retentionDays: number): Promise<string[]> {
    const dropped: string[] = [];
    for (const { name, start } of await listPartitions(this.pools.write)) {
      const end = monthStart(start, 1);
      if (end.getTime() > cutoff.getTime()) continue;
      await this.prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM "${name}"`);
        await tx.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
        await appendAudit(tx, SYSTEM_ACTOR, {
          action: 'hook_runs.partition.drop',
          targetType: 'hook_runs_partition',
          targetId: name,
          details: {
            from: start.toISOString(),
            to: end.toISOString(),
            rows: Number(rows[0]?.n ?? 0),
            retentionDays,
            cutoff: cutoff.toISOString(),
          },
        });
      });
      dropped.push(name);
    }
    return dropped;
  }
}
