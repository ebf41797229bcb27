-- The release preview's summary of each stored inventory (hook-core inventorySummary, written with the document at
-- ingest): running non-managed hooks by layer and their keys, so a fleet preview reads columns, not documents.
ALTER TABLE "endpoint_inventories"
  ADD COLUMN "suppressible_user" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "suppressible_project" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "suppressible_plugin" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "suppressible_session" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "suppressible_keys" TEXT NOT NULL DEFAULT '[]';

-- Backfill from the stored documents (the same rule: fate "run", not managed, layer user/project/plugin/session;
-- keys in code-point order, which the preview re-sorts by code unit where they differ: beyond U+FFFF).
UPDATE "endpoint_inventories" i
   SET ("suppressible_user", "suppressible_project", "suppressible_plugin", "suppressible_session",
        "suppressible_keys") = (
     SELECT count(*) FILTER (WHERE h->>'layer' = 'user')::int,
            count(*) FILTER (WHERE h->>'layer' = 'project')::int,
            count(*) FILTER (WHERE h->>'layer' = 'plugin')::int,
            count(*) FILTER (WHERE h->>'layer' = 'session')::int,
            -- The JSON text of the key array as JSON.stringify writes it (to_json escapes a string as it does).
            '[' || coalesce(string_agg(to_json(h->>'key')::text, ',' ORDER BY h->>'key' COLLATE "C"), '') || ']'
       FROM jsonb_array_elements(CASE WHEN jsonb_typeof(i.doc->'hooks') = 'array' THEN i.doc->'hooks' ELSE '[]' END) h
      WHERE h->>'fate' = 'run' AND (h->'managed') IS DISTINCT FROM 'true'::jsonb
        AND h->>'layer' IN ('user', 'project', 'plugin', 'session'));
