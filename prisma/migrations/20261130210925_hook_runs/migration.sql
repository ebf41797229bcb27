-- CreateTable
CREATE TABLE "hook_run_chains" (
    "endpoint_id" UUID NOT NULL,
    "next_seq" BIGINT NOT NULL DEFAULT 1,
    "last_hash" TEXT,
    "max_seq" BIGINT NOT NULL DEFAULT 0,
    "dropped_total" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hook_run_chains_pkey" PRIMARY KEY ("endpoint_id")
);

-- CreateTable
CREATE TABLE "hook_run_findings" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID,
    "kind" TEXT NOT NULL,
    "from_seq" BIGINT,
    "to_seq" BIGINT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "hook_run_findings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_settings" (
    "group_id" UUID NOT NULL,
    "capture" TEXT NOT NULL DEFAULT 'excerpts',
    "max_excerpt_bytes" INTEGER NOT NULL DEFAULT 2048,
    "redact_patterns" JSONB NOT NULL DEFAULT '[]',
    "use_default_redact" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT,

    CONSTRAINT "audit_settings_pkey" PRIMARY KEY ("group_id")
);

-- CreateIndex
CREATE INDEX "hook_run_chains_updated_at_idx" ON "hook_run_chains"("updated_at");

-- CreateIndex
CREATE INDEX "hook_run_findings_endpoint_id_detected_at_id_idx" ON "hook_run_findings"("endpoint_id", "detected_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "hook_run_findings_detected_at_id_idx" ON "hook_run_findings"("detected_at" DESC, "id" DESC);


-- Hand-written: the hook-run records, range-partitioned by start time (one partition per month, created ahead
-- by the maintenance job and on demand by ingest, retention drops whole partitions). Not a Prisma model.
-- The primary key includes the partition key, so ingest is idempotent on (id, started_at) with ON CONFLICT DO NOTHING.
CREATE TABLE "hook_runs" (
    "id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "prev_hash" TEXT,
    "record_hash" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "tool_name" TEXT,
    "hook_key" TEXT NOT NULL,
    "hook_hash" TEXT,
    "managed" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL,
    "skip_reason" TEXT,
    "decision" TEXT,
    "policy_revision" TEXT,
    "policy_digest" TEXT,
    "session_id" TEXT,
    "turn_id" TEXT,
    "duration_ms" INTEGER,
    "exit_code" INTEGER,
    "signal" TEXT,
    "timed_out" BOOLEAN NOT NULL DEFAULT false,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "record" JSONB NOT NULL,
    CONSTRAINT "hook_runs_pkey" PRIMARY KEY ("id", "started_at")
) PARTITION BY RANGE ("started_at");

-- One endpoint's newest rows (keyset pagination on started_at, id).
CREATE INDEX "hook_runs_endpoint_time_idx" ON "hook_runs" ("endpoint_id", "started_at" DESC, "id" DESC);
-- A group's newest rows, and per-group counts by bucket (covering: index-only scans for the aggregates).
CREATE INDEX "hook_runs_group_time_idx" ON "hook_runs" ("group_id", "started_at" DESC, "id" DESC) INCLUDE ("event", "decision", "status");
-- Denials and blocks only (a small fraction of all runs): a day's denials without touching the allowed runs.
CREATE INDEX "hook_runs_denied_time_idx" ON "hook_runs" ("started_at" DESC, "id" DESC) WHERE "decision" IN ('deny', 'block');
-- Counts by event/decision/status per time bucket over everything: index-only scan on a time range.
CREATE INDEX "hook_runs_time_counts_idx" ON "hook_runs" ("started_at") INCLUDE ("event", "decision", "status");
-- One hook's history (by key, the hash narrows to one definition), and the top failing/blocking hooks.
CREATE INDEX "hook_runs_hook_time_idx" ON "hook_runs" ("hook_key", "started_at" DESC);
-- A session's runs.
CREATE INDEX "hook_runs_session_idx" ON "hook_runs" ("session_id", "started_at" DESC) WHERE "session_id" IS NOT NULL;
-- Chain continuity checks walk an endpoint's records by sequence number.
CREATE INDEX "hook_runs_endpoint_seq_idx" ON "hook_runs" ("endpoint_id", "seq");

-- The current and next months, the maintenance job keeps creating months ahead.
CREATE TABLE "hook_runs_p202611" PARTITION OF "hook_runs" FOR VALUES FROM ('2026-11-01 00:00:00+00') TO ('2026-12-01 00:00:00+00');
CREATE TABLE "hook_runs_p202612" PARTITION OF "hook_runs" FOR VALUES FROM ('2026-12-01 00:00:00+00') TO ('2027-01-01 00:00:00+00');
