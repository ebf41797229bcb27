-- Fleet console: sort indexes of the fleet-wide endpoints list (byte-order text, then id, as the keyset compares),
-- open findings per endpoint, and saved views.
CREATE INDEX "endpoints_hostname_c_id_idx" ON "endpoints" ("hostname" COLLATE "C", "id");
CREATE INDEX "endpoints_platform_c_id_idx" ON "endpoints" ("platform" COLLATE "C", "id");
CREATE INDEX "endpoints_agent_version_c_id_idx" ON "endpoints" ("agent_version" COLLATE "C", "id");
CREATE INDEX "endpoints_applied_revision_id_idx" ON "endpoints" ((COALESCE("applied_revision", -1)), "id");
CREATE INDEX "endpoints_last_seen_id_idx" ON "endpoints" ((COALESCE("last_seen_at", '-infinity'::timestamptz)), "id");
CREATE INDEX "endpoints_enrolled_at_id_idx" ON "endpoints" ("enrolled_at", "id");
CREATE INDEX "hook_run_findings_open_idx" ON "hook_run_findings" ("endpoint_id") WHERE "resolved_at" IS NULL;

-- A named explorer or endpoints query: a person's own, or shared with everyone (shared ones only by admins).
CREATE TABLE "saved_views" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "query" JSONB NOT NULL DEFAULT '{}',
    "owner_key" TEXT NOT NULL,
    "owner_name" TEXT NOT NULL,
    "shared" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "saved_views_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "saved_views_owner_key_kind_idx" ON "saved_views" ("owner_key", "kind");
CREATE INDEX "saved_views_shared_kind_idx" ON "saved_views" ("kind") WHERE "shared";
