-- Hourly counts of hook runs per group by event, decision and status, read by the stats aggregates: a day's counts
-- over the whole fleet sums a few thousand rows instead of scanning every run of the day.
-- Append-only: each ingest transaction inserts the counts of the rows it actually inserted (no hot rows to lock,
-- so concurrent ingest never waits or deadlocks here): readers sum(n), maintenance merges an hour's rows later.
CREATE TABLE "hook_run_hourly" (
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "group_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    -- '' when the run had no decision (kept non-null so merged rows group cleanly).
    "decision" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL
);
CREATE INDEX "hook_run_hourly_hour_idx" ON "hook_run_hourly" ("hour") INCLUDE ("event", "decision", "status", "n");
CREATE INDEX "hook_run_hourly_group_hour_idx" ON "hook_run_hourly" ("group_id", "hour") INCLUDE ("event", "decision", "status", "n");

-- Counts of the runs already stored.
INSERT INTO "hook_run_hourly" ("hour", "group_id", "event", "decision", "status", "n")
SELECT date_bin('1 hour', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "group_id", "event",
       coalesce("decision", ''), "status", count(*)
  FROM "hook_runs"
 GROUP BY 1, 2, 3, 4, 5;
