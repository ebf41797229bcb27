-- CreateTable
CREATE TABLE "audit_log_head" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_head_pkey" PRIMARY KEY ("id")
);


-- Hand-written: one row only, starting at the current end of the chain (or the genesis link when it is empty).
ALTER TABLE "audit_log_head" ADD CONSTRAINT "audit_log_head_one_row" CHECK ("id" = 1);

INSERT INTO "audit_log_head" ("id", "seq", "hash")
SELECT 1, COALESCE(MAX("seq"), 0), COALESCE((SELECT "hash" FROM "audit_log" ORDER BY "seq" DESC LIMIT 1), 'sha256:0000000000000000000000000000000000000000000000000000000000000000')
FROM "audit_log";
