-- DropIndex
DROP INDEX "endpoints_machine_id_key";

-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "admission" TEXT NOT NULL DEFAULT 'active',
ADD COLUMN     "duplicate_of" UUID,
ADD COLUMN     "key_at" TIMESTAMPTZ(3),
ADD COLUMN     "key_id" TEXT,
ADD COLUMN     "public_key" TEXT,
ALTER COLUMN "credential_hash" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_key_id_key" ON "endpoints"("key_id");

-- CreateIndex
CREATE INDEX "endpoints_machine_id_idx" ON "endpoints"("machine_id");

-- CreateIndex
CREATE INDEX "endpoints_admission_idx" ON "endpoints"("admission");


-- At most one admitted endpoint per machine id (pending duplicates and retired endpoints may share it).
CREATE UNIQUE INDEX "endpoints_machine_id_admitted" ON "endpoints"("machine_id") WHERE "admission" = 'active' AND "revoked_at" IS NULL;

-- Enrollment decisions are one of these.
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_admission_check" CHECK ("admission" IN ('active', 'pending', 'rejected', 'retired'));
