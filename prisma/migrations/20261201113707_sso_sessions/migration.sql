-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN     "actor_person" JSONB;

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "owner_email" TEXT,
ADD COLUMN     "owner_issuer" TEXT,
ADD COLUMN     "owner_name" TEXT,
ADD COLUMN     "owner_subject" TEXT,
ADD COLUMN     "session_id" UUID;

-- CreateTable
CREATE TABLE "user_sessions" (
    "id" UUID NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "name" TEXT,
    "role" "Role" NOT NULL,
    "groups" JSONB NOT NULL DEFAULT '[]',
    "refresh_token_enc" TEXT,
    "id_token_hint" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "refreshed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "refreshing_until" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_reason" TEXT,
    "client_ip" TEXT,
    "user_agent" TEXT,

    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oidc_logins" (
    "id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "return_to" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_logins_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_sessions_secret_hash_key" ON "user_sessions"("secret_hash");

-- CreateIndex
CREATE INDEX "user_sessions_created_at_id_idx" ON "user_sessions"("created_at", "id");

-- CreateIndex
CREATE INDEX "user_sessions_issuer_subject_idx" ON "user_sessions"("issuer", "subject");

-- CreateIndex
CREATE UNIQUE INDEX "oidc_logins_state_key" ON "oidc_logins"("state");

-- CreateIndex
CREATE INDEX "oidc_logins_created_at_idx" ON "oidc_logins"("created_at");

-- CreateIndex
CREATE INDEX "api_tokens_owner_issuer_owner_subject_idx" ON "api_tokens"("owner_issuer", "owner_subject");

