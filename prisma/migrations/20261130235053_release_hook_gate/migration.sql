-- AlterTable
ALTER TABLE "releases" ADD COLUMN     "min_hook_runs" INTEGER NOT NULL DEFAULT 20;

-- Hand-written: the rollout gate's hook failure rate reads one group's runs under one policy revision, newest
-- first (index-only: the status is included), instead of every run of the group since the release started.
CREATE INDEX "hook_runs_group_revision_time_idx" ON "hook_runs" ("group_id", "policy_revision", "started_at" DESC) INCLUDE ("status");
