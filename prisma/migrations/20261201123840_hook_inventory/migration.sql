-- AlterTable
ALTER TABLE "audit_settings" ADD COLUMN     "inventory_commands" TEXT NOT NULL DEFAULT 'program';

-- CreateTable
CREATE TABLE "endpoint_inventories" (
    "endpoint_id" UUID NOT NULL,
    "digest" TEXT NOT NULL,
    "collected_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "command_mode" TEXT NOT NULL,
    "policy_revision" INTEGER,
    "hooks_enabled" BOOLEAN NOT NULL,
    "hook_count" INTEGER NOT NULL,
    "doc" JSONB NOT NULL,

    CONSTRAINT "endpoint_inventories_pkey" PRIMARY KEY ("endpoint_id")
);

-- CreateTable
CREATE TABLE "endpoint_inventory_hooks" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "user" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "matcher" TEXT,
    "key" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "trust" TEXT NOT NULL,
    "managed" BOOLEAN NOT NULL,
    "plugin" TEXT,
    "project" TEXT,
    "fate" TEXT NOT NULL,
    "skip_reason" TEXT,
    "command_hash" TEXT,
    "program" TEXT,
    "command" TEXT,

    CONSTRAINT "endpoint_inventory_hooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoint_inventory_changes" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "digest" TEXT NOT NULL,
    "added" INTEGER NOT NULL,
    "removed" INTEGER NOT NULL,
    "changes" JSONB NOT NULL,

    CONSTRAINT "endpoint_inventory_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "denied_hook_hashes" (
    "hash" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,

    CONSTRAINT "denied_hook_hashes_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "endpoint_inventories_changed_at_idx" ON "endpoint_inventories"("changed_at");

-- CreateIndex
CREATE INDEX "endpoint_inventory_hooks_endpoint_id_idx" ON "endpoint_inventory_hooks"("endpoint_id");

-- CreateIndex
CREATE INDEX "endpoint_inventory_hooks_hash_idx" ON "endpoint_inventory_hooks"("hash");

-- CreateIndex
CREATE INDEX "endpoint_inventory_hooks_group_id_layer_idx" ON "endpoint_inventory_hooks"("group_id", "layer");

-- CreateIndex
CREATE INDEX "endpoint_inventory_hooks_program_idx" ON "endpoint_inventory_hooks"("program");

-- CreateIndex
CREATE INDEX "endpoint_inventory_changes_endpoint_id_at_idx" ON "endpoint_inventory_changes"("endpoint_id", "at" DESC);

-- CreateIndex
CREATE INDEX "endpoint_inventory_changes_at_idx" ON "endpoint_inventory_changes"("at" DESC);

