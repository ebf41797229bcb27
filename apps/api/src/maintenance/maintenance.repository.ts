// Partition DDL for hook_runs: create months ahead, drop months past retention (each drop audited, its hourly and
// per-endpoint counts removed with it); compaction of the hourly rollup.
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
        await tx.$executeRaw`DELETE FROM hook_run_hourly WHERE hour >= ${start} AND hour < ${end}`;
        await tx.$executeRaw`DELETE FROM hook_run_endpoint_counts WHERE hour >= ${start} AND hour < ${end}`;
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

  // Replaces, for each (hour, group) in [from, to) holding several rows of one key, those rows by their sum; returns
  // how many rows were merged away. Rows appended meanwhile by ingest are not seen by the DELETE and stay as they are.
  async compactHourlyCounts(from: Date, to: Date): Promise<number> {
    const res = await this.pools.write.query<{ merged: number }>(
      `WITH dup AS (
         SELECT hour, group_id FROM hook_run_hourly WHERE hour >= $1 AND hour < $2
          GROUP BY hour, group_id HAVING count(*) > count(DISTINCT (event, decision, status, policy_revision))
       ), d AS (
         DELETE FROM hook_run_hourly h USING dup WHERE h.hour = dup.hour AND h.group_id = dup.group_id
         RETURNING h.hour, h.group_id, h.event, h.decision, h.status, h.policy_revision, h.n
       ), ins AS (
         INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
         SELECT hour, group_id, event, decision, status, policy_revision, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5, 6
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM d) - (SELECT count(*) FROM ins) AS merged`,
      [from, to],
    );
    return Number(res.rows[0]?.merged ?? 0);
  }
}
