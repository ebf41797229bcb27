-- A shadow release's budget (issue 27): how long its hooks may keep running after the enforced hooks of an event are
-- done, carried in its signed bundle (NULL: the engine's default of 100 ms).
ALTER TABLE "releases" ADD COLUMN "shadow_budget_ms" INTEGER;
