-- A token role that may read GET /metrics and nothing else.
ALTER TYPE "Role" ADD VALUE IF NOT EXISTS 'metrics';
