-- Shadow releases (issue 27): runs of the shadow layer of an endpoint (observe mode) name their shadow release, NULL
-- for enforced runs, an empty text for a shadow layer that names none. Kept out of the hourly rollup and the gates.
ALTER TABLE "hook_runs" ADD COLUMN "shadow_release_id" TEXT;
CREATE INDEX "hook_runs_shadow_release_idx" ON "hook_runs" ("shadow_release_id", "started_at") WHERE "shadow_release_id" IS NOT NULL;
