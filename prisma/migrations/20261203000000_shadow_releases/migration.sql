-- Shadow releases (issue 27): a release with strategy 'shadow' delivers its version beside the enforced policy, as the
-- shadow layer. A group has at most one live shadow release (rolling, paused or completed: its layer is delivered);
-- promote turns it into a staged release of the same version (linked both ways), abort ends it.
ALTER TABLE "releases" ADD COLUMN "promoted_release_id" UUID;
ALTER TABLE "releases" ADD COLUMN "promoted_from_id" UUID;
CREATE UNIQUE INDEX "releases_one_live_shadow_per_group" ON "releases" ("group_id")
  WHERE "strategy" = 'shadow' AND "status" IN ('rolling', 'paused', 'completed');

-- What the endpoint's agent last reported about its shadow layer: the shadow release on disk (NULL: none), and the
-- last shadow bundle it refused (release and reason), so an admin sees an endpoint that cannot run the shadow layer.
ALTER TABLE "endpoints" ADD COLUMN "shadow_release_id" UUID;
ALTER TABLE "endpoints" ADD COLUMN "shadow_revision" INTEGER;
ALTER TABLE "endpoints" ADD COLUMN "shadow_error" TEXT;
