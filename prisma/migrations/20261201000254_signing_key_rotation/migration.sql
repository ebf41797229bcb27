-- AlterTable
ALTER TABLE "signing_keys" ADD COLUMN     "activated_at" TIMESTAMPTZ(3);

-- Hand-written: the key that signs today (the newest stored private key) stays the active one.
UPDATE "signing_keys" SET "activated_at" = "created_at" WHERE "kid" = (SELECT "kid" FROM "signing_keys" WHERE "retired_at" IS NULL AND "private_key_pem" IS NOT NULL ORDER BY "created_at" DESC LIMIT 1);
