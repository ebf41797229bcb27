-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "target_revision" INTEGER;

-- CreateIndex
CREATE INDEX "endpoints_group_id_target_revision_state_idx" ON "endpoints"("group_id", "target_revision", "state");

