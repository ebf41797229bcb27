-- Streaming (docs/streaming.md): destinations with their delivery state, one durable cursor per destination and stream,
-- and the alert rules, alerts and alert events the worker evaluates. Rows to stream are read after they committed,
-- ordered by the id of the transaction that wrote them (stream_xid, then a key): a reader only reads rows of
-- transactions older than the oldest one still running, so no row can appear behind a cursor later.

-- AlterTable: the writing transaction of every hook-run record and finding (read by the stream, never by ingest)
ALTER TABLE "hook_runs" ADD COLUMN "stream_xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE "hook_run_findings" ADD COLUMN "stream_xid" xid8 NOT NULL DEFAULT pg_current_xact_id();

-- CreateIndex
CREATE INDEX "hook_runs_stream_idx" ON "hook_runs"("stream_xid", "endpoint_id", "seq", "id");
CREATE INDEX "hook_run_findings_stream_idx" ON "hook_run_findings"("stream_xid", "id");

-- CreateTable
CREATE TABLE "stream_destinations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secrets_sealed" TEXT,
    "secret_rotated_at" TIMESTAMPTZ(3),
    "previous_secret_until" TIMESTAMPTZ(3),
    "streams" JSONB NOT NULL DEFAULT '{}',
    "format" TEXT NOT NULL DEFAULT 'native',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "require_audit_delivery" BOOLEAN NOT NULL DEFAULT false,
    "dead_letter_after_sec" INTEGER NOT NULL DEFAULT 86400,
    "batch_max_bytes" INTEGER NOT NULL DEFAULT 1048576,
    "batch_max_events" INTEGER NOT NULL DEFAULT 1000,
    "state" TEXT NOT NULL DEFAULT 'active',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "last_delivered_at" TIMESTAMPTZ(3),
    "delivered_count" BIGINT NOT NULL DEFAULT 0,
    "dead_lettered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,

    CONSTRAINT "stream_destinations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "stream_destinations_name_key" ON "stream_destinations"("name");

-- CreateTable
CREATE TABLE "stream_cursors" (
    "destination_id" UUID NOT NULL,
    "stream" TEXT NOT NULL,
    "position" JSONB NOT NULL,
    "delivered_count" BIGINT NOT NULL DEFAULT 0,
    "delivered_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stream_cursors_pkey" PRIMARY KEY ("destination_id", "stream")
);

-- AddForeignKey
ALTER TABLE "stream_cursors" ADD CONSTRAINT "stream_cursors_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "stream_destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_rules_name_key" ON "alert_rules"("name");

-- CreateTable
CREATE TABLE "alerts" (
    "id" UUID NOT NULL,
    "rule_id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'firing',
    "summary" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "fired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex: one open episode per rule and subject
CREATE UNIQUE INDEX "alerts_open_episode" ON "alerts"("rule_id", "subject") WHERE "state" = 'firing';
CREATE INDEX "alerts_fired_at_id_idx" ON "alerts"("fired_at" DESC, "id" DESC);

-- CreateTable: what the alerts stream delivers (fired and resolved, in commit order)
CREATE TABLE "alert_events" (
    "seq" BIGSERIAL NOT NULL,
    "stream_xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "alert_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "doc" JSONB NOT NULL,

    CONSTRAINT "alert_events_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "alert_events_stream_idx" ON "alert_events"("stream_xid", "seq");
