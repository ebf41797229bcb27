-- The default endpoint group always exists, and at most one group is the default.
CREATE UNIQUE INDEX "groups_single_default" ON "groups" ("is_default") WHERE "is_default";

INSERT INTO "groups" ("id", "name", "description", "is_default", "created_at", "updated_at")
VALUES (gen_random_uuid(), 'default', 'Endpoints not assigned to another group', true, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
ON CONFLICT DO NOTHING;
