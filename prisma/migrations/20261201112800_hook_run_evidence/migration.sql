-- Hand-written: accepted uploads staged durably before the API answers 202 (Redis only wakes the worker, the worker
-- drains this table, deleting a row in the same transaction that stores its records). Not a Prisma model.
CREATE TABLE "hook_run_uploads" (
    "id" TEXT NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "dropped_total" BIGINT,
    "records" INTEGER NOT NULL,
    -- Inflated size of the upload (what the backpressure cap counts).
    "bytes" BIGINT NOT NULL,
    -- 'rows' (the validated rows, gzip JSON), or an upload body to parse again: 'gzip', 'ndjson', 'json'.
    "encoding" TEXT NOT NULL,
    "body" BYTEA NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hook_run_uploads_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "hook_run_uploads_next_idx" ON "hook_run_uploads" ("next_attempt_at", "received_at");

-- Hand-written: records that PostgreSQL refused on their own (kept byte for byte with the error, shown to auditors
-- as a `quarantined` finding, their sequence numbers count as present in the chain).
CREATE TABLE "hook_run_quarantine" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "record_id" TEXT,
    "seq" BIGINT,
    "prev_hash" TEXT,
    "record_hash" TEXT,
    "gap" JSONB,
    "line" BYTEA NOT NULL,
    "error" TEXT NOT NULL,
    "sqlstate" TEXT,
    "quarantined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hook_run_quarantine_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "hook_run_quarantine_record_idx" ON "hook_run_quarantine" ("endpoint_id", "record_hash");
CREATE INDEX "hook_run_quarantine_endpoint_seq_idx" ON "hook_run_quarantine" ("endpoint_id", "seq");

-- Complete records: the tool command the hook saw (queryable by substring), and whether text was escaped to be storable.
ALTER TABLE "hook_runs" ADD COLUMN "tool_command" TEXT;
ALTER TABLE "hook_runs" ADD COLUMN "escaped" BOOLEAN NOT NULL DEFAULT false;
