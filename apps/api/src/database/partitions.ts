// Monthly partitions of hook_runs: names, bounds and the DDL creating one (shared by ingest and maintenance).
import type pg from 'pg';

/** Partition names are `hook_runs_pYYYYMM` (UTC months). */
export const PARTITION_NAME = /^hook_runs_p(\d{4})(\d{2})$/;

// The first instant (UTC) of the month containing `at`, shifted by `offset` months.
export function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

// The partition table name for the month starting at `start`.
export function partitionName(start: Date): string {
  return `hook_runs_p${start.getUTCFullYear()}${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
}

// Creates the month's partition unless it exists; returns true when it was created here.
export async function ensurePartition(db: pg.Pool | pg.PoolClient, start: Date): Promise<boolean> {
  const name = partitionName(start);
  const exists = await db.query('SELECT 1 FROM pg_class WHERE relname = $1', [name]);
  if (exists.rowCount) return false;
  const from = start.toISOString();
  const to = monthStart(start, 1).toISOString();
  try {
    await db.query(
      `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF hook_runs FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
    return true;
  } catch (err) {
    // Two workers racing on the same month: the loser sees a duplicate catalog row; the partition exists.
    if ((err as { code?: string }).code === '23505' || (err as { code?: string }).code === '42P07') return false;
    throw err;
  }
}

// Lists existing partitions with the month each covers.
export async function listPartitions(db: pg.Pool | pg.PoolClient): Promise<Array<{ name: string; start: Date }>> {
  const res = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'hook_runs' ORDER BY c.relname`,
  );
  const out: Array<{ name: string; start: Date }> = [];
  for (const { name } of res.rows) {
    const m = PARTITION_NAME.exec(name);
    if (m) out.push({ name, start: new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) });
  }
  return out;
}
