// Time buckets of the hook-run aggregates (UTC hours and days, as the hourly rollup `hook_run_hourly` keys them).

/** UTC origin of the time buckets (date_bin is plain arithmetic on the timestamp, unlike a time-zone date_trunc). */
const ORIGIN = `TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

// SQL for the UTC hour or day that contains the timestamp column `col`.
export function bucketSql(col: string, bucket: 'hour' | 'day' = 'hour'): string {
  return `date_bin('1 ${bucket}', ${col}, ${ORIGIN})`;
}
