-- The hourly rollup also keys its counts by the policy revision in force, so the rollout gate's hook failure rate
-- (one group's runs under one revision) sums a few rollup rows: the extra hook_runs index it used is dropped (one
-- less index for every ingested row to maintain).
DROP INDEX IF EXISTS "hook_runs_group_revision_time_idx";

ALTER TABLE "hook_run_hourly" ADD COLUMN "policy_revision" TEXT NOT NULL DEFAULT '';

-- Derived data: rebuilt from the runs with the new key.
TRUNCATE "hook_run_hourly";
INSERT INTO "hook_run_hourly" ("hour", "group_id", "event", "decision", "status", "policy_revision", "n")
SELECT date_bin('1 hour', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "group_id", "event",
       coalesce("decision", ''), "status", coalesce("policy_revision", ''), count(*)
  FROM "hook_runs"
 GROUP BY 1, 2, 3, 4, 5, 6;
