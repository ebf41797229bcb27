-- AlterTable: the policy/bundle contract reported by the agent of an endpoint (null: an agent from before contract reporting)
ALTER TABLE "endpoints" ADD COLUMN "contract_version" INTEGER;
