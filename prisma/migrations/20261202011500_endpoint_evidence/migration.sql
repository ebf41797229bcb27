-- AlterTable
ALTER TABLE "releases" ADD COLUMN     "min_reporting_endpoints" INTEGER NOT NULL DEFAULT 3;

-- Hand-written: a hook-run record is keyed by its endpoint too, so an endpoint that learned another's record ids
-- cannot pre-empt them (ingest's ON CONFLICT DO NOTHING skips only that endpoint's own re-sent records). The id
-- leads, so a look-up by id alone still uses the key, the partition key is part of it (each partition gets it).
ALTER TABLE "hook_runs" DROP CONSTRAINT "hook_runs_pkey";
ALTER TABLE "hook_runs" ADD CONSTRAINT "hook_runs_pkey" PRIMARY KEY ("id", "endpoint_id", "started_at");

-- Hand-written: the revisions each endpoint was served (a status report about a revision the rollout offers it) and
-- whether it applied them, written by status reports. Evidence claiming another revision is flagged
-- (`unserved_revision`), and the rollout gate counts only endpoints that applied the revision. Not a Prisma model.
CREATE TABLE "endpoint_revisions" (
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "release_id" UUID NOT NULL,
    "applied" BOOLEAN NOT NULL DEFAULT false,
    "served_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "applied_at" TIMESTAMPTZ(3),
    CONSTRAINT "endpoint_revisions_pkey" PRIMARY KEY ("endpoint_id", "group_id", "revision"),
    CONSTRAINT "endpoint_revisions_endpoint_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE
);
-- The gate's list: a group's endpoints that applied one revision.
CREATE INDEX "endpoint_revisions_applied_idx" ON "endpoint_revisions" ("group_id", "revision") WHERE "applied";
-- What endpoints applied before this table existed.
INSERT INTO "endpoint_revisions" ("endpoint_id", "group_id", "revision", "release_id", "applied", "applied_at")
SELECT "id", "group_id", "applied_revision", "applied_release_id", true, coalesce("last_seen_at", CURRENT_TIMESTAMP)
  FROM "endpoints"
 WHERE "applied_revision" IS NOT NULL AND "applied_release_id" IS NOT NULL;

-- Hand-written: per endpoint, group, claimed policy revision and UTC hour, the runs that ran (skipped excluded) and
-- how many of those failed or timed out: the rollout gate's per-endpoint failure rates. Upserted by ingest under the
-- endpoint's chain lock (one writer per endpoint: no contention), revisions that are not release numbers are not kept.
CREATE TABLE "hook_run_endpoint_counts" (
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "policy_revision" INTEGER NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "ran" BIGINT NOT NULL,
    "failed" BIGINT NOT NULL,
    CONSTRAINT "hook_run_endpoint_counts_pkey" PRIMARY KEY ("endpoint_id", "group_id", "policy_revision", "hour")
);
CREATE INDEX "hook_run_endpoint_counts_group_idx" ON "hook_run_endpoint_counts" ("group_id", "policy_revision", "hour");
INSERT INTO "hook_run_endpoint_counts" ("endpoint_id", "group_id", "policy_revision", "hour", "ran", "failed")
SELECT "endpoint_id", "group_id", "policy_revision"::int, date_bin('1 hour', "started_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
       count(*), count(*) FILTER (WHERE "status" IN ('failed', 'timed_out'))
  FROM "hook_runs"
 WHERE "status" <> 'skipped' AND "policy_revision" ~ '^[1-9][0-9]{0,8}$'
 GROUP BY 1, 2, 3, 4;
