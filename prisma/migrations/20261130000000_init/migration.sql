
-- CreateEnum
CREATE TYPE "Role" AS ENUM ('admin', 'auditor');

-- CreateTable
CREATE TABLE "audit_log" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" TEXT,
    "actor_name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before_digest" TEXT,
    "after_digest" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "request_id" TEXT,
    "client_ip" TEXT,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "groups" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "group_id" UUID NOT NULL,
    "latest_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_versions" (
    "id" UUID NOT NULL,
    "policy_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "canonical_toml" TEXT NOT NULL,
    "structured" JSONB NOT NULL,
    "digest" TEXT NOT NULL,
    "warnings" JSONB NOT NULL DEFAULT '[]',
    "author_id" TEXT,
    "author_name" TEXT NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_files" (
    "id" UUID NOT NULL,
    "version_id" UUID NOT NULL,
    "path" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "mode" INTEGER NOT NULL,

    CONSTRAINT "policy_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "enrollment_secrets" (
    "id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "secret_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "max_uses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,

    CONSTRAINT "enrollment_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoints" (
    "id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "machine_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "agent_version" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "enrolled_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "credential_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "state" TEXT NOT NULL DEFAULT 'pending',
    "applied_revision" INTEGER,
    "applied_digest" TEXT,
    "applied_release_id" UUID,
    "last_status" JSONB,
    "uploads_pending" INTEGER NOT NULL DEFAULT 0,
    "records_dropped" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "public_key_pem" TEXT NOT NULL,
    "private_key_pem" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "releases" (
    "id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "policy_version_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "strategy" TEXT NOT NULL DEFAULT 'immediate',
    "status" TEXT NOT NULL DEFAULT 'active',
    "rings" JSONB NOT NULL DEFAULT '[100]',
    "current_ring" INTEGER NOT NULL DEFAULT 0,
    "ring_interval_sec" INTEGER NOT NULL DEFAULT 3600,
    "max_apply_failure_rate" DOUBLE PRECISION NOT NULL DEFAULT 0.05,
    "max_hook_failure_rate" DOUBLE PRECISION,
    "previous_release_id" UUID,
    "manifest" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "paused_reason" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "releases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_log_id_key" ON "audit_log"("id");

-- CreateIndex
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at");

-- CreateIndex
CREATE INDEX "audit_log_action_idx" ON "audit_log"("action");

-- CreateIndex
CREATE INDEX "audit_log_target_type_target_id_idx" ON "audit_log"("target_type", "target_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_created_at_id_idx" ON "api_tokens"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "groups_name_key" ON "groups"("name");

-- CreateIndex
CREATE INDEX "groups_created_at_id_idx" ON "groups"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "policies_name_key" ON "policies"("name");

-- CreateIndex
CREATE INDEX "policies_group_id_idx" ON "policies"("group_id");

-- CreateIndex
CREATE INDEX "policies_created_at_id_idx" ON "policies"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "policy_versions_policy_id_number_key" ON "policy_versions"("policy_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "policy_files_version_id_path_key" ON "policy_files"("version_id", "path");

-- CreateIndex
CREATE UNIQUE INDEX "enrollment_secrets_secret_hash_key" ON "enrollment_secrets"("secret_hash");

-- CreateIndex
CREATE INDEX "enrollment_secrets_group_id_idx" ON "enrollment_secrets"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_machine_id_key" ON "endpoints"("machine_id");

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_credential_hash_key" ON "endpoints"("credential_hash");

-- CreateIndex
CREATE INDEX "endpoints_group_id_id_idx" ON "endpoints"("group_id", "id");

-- CreateIndex
CREATE INDEX "endpoints_last_seen_at_idx" ON "endpoints"("last_seen_at");

-- CreateIndex
CREATE INDEX "releases_group_id_created_at_idx" ON "releases"("group_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "releases_group_id_revision_key" ON "releases"("group_id", "revision");

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_files" ADD CONSTRAINT "policy_files_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "policy_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "enrollment_secrets" ADD CONSTRAINT "enrollment_secrets_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_policy_version_id_fkey" FOREIGN KEY ("policy_version_id") REFERENCES "policy_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

