// Vitest global setup: makes sure the migrated template database for this checkout's migrations exists, and drops
// test databases left behind by interrupted runs (older than any run lasts).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { admin, TEMPLATE_DB, testDatabaseCreatedAt, urlFor } from './support/db';

const root = path.resolve(__dirname, '..');
const LOCK_KEY = 0x48_57_54_50; // serializes template creation across concurrent test runs
const STALE_MS = 6 * 3600_000;

export default async function setup(): Promise<void> {
  await admin(async (client) => {
    const dbs = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'hw\\_t\\_%'`,
    );
    for (const { datname } of dbs.rows) {
      const at = testDatabaseCreatedAt(datname);
      if (at !== null && Date.now() - at > STALE_MS) {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
      }
    }
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB]);
      if (exists.rowCount !== 0) return;
      const building = `${TEMPLATE_DB}_build`;
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${building}"`);
      execFileSync(path.join(root, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: urlFor(building) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      // Renamed only once complete, so an interrupted run never leaves a half-migrated template.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${TEMPLATE_DB}"`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  });
}
