-- Private signing keys are stored sealed under the key-encryption key (the API seals plain-text rows at start)
ALTER TABLE "signing_keys" RENAME COLUMN "private_key_pem" TO "private_key_sealed";

-- A retired key's private half is destroyed (retiring requires that no served bundle is signed by it any more)
UPDATE "signing_keys" SET "private_key_sealed" = NULL WHERE "retired_at" IS NOT NULL;
