// The hourly rollup of hook runs (`hook_run_hourly`): the bucket expression shared by ingest, queries and maintenance.

/** UTC origin of the time buckets (date_bin is plain arithmetic on the timestamp, unlike a time-zone date_trunc). */
const ORIGIN = `TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

// SQL for the UTC hour or day that contains the timestamp column `col`.
export function bucketSql(col: string, bucket: 'hour' | 'day' = 'hour'): string {
  return `date_bin('1 ${bucket}', ${col}, ${ORIGIN})`;
}

// SQL for the UTC hour containing `col` (the rollup's key).
export const HOUR_SQL = (col: string): string => bucketSql(col, 'hour');
