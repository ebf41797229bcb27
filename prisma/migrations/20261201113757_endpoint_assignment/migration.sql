-- AlterTable: the epoch of an endpoint's group assignment, raised by every move (the agent's signed statement names it)
ALTER TABLE "endpoints" ADD COLUMN "assignment_epoch" INTEGER NOT NULL DEFAULT 1;
