// Vitest global setup: makes sure the migrated template database exists (migrations run once per change).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL, TEMPLATE_DB, urlFor } from './support/db';

const root = path.resolve(__dirname, '..');

// Lists the migration folders in the repository, in order.
function migrationNames(): string[] {
  return readdirSync(path.join(root, 'prisma', 'migrations'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

// Reads which migrations the template already has, or null when it does not exist.
async function appliedMigrations(): Promise<string[] | null> {
  const adminClient = new pg.Client({ connectionString: ADMIN_URL });
  await adminClient.connect();
  try {
    const exists = await adminClient.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB]);
    if (exists.rowCount === 0) return null;
  } finally {
    await adminClient.end();
  }
  const client = new pg.Client({ connectionString: urlFor(TEMPLATE_DB) });
  await client.connect();
  try {
    const rows = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
    );
    return rows.rows.map((r) => r.migration_name);
  } catch {
    return [];
  } finally {
    await client.end();
  }
}

export default async function setup(): Promise<void> {
  const wanted = migrationNames();
  const applied = await appliedMigrations();
  if (applied && applied.join('\n') === wanted.join('\n')) return;
  const adminClient = new pg.Client({ connectionString: ADMIN_URL });
  await adminClient.connect();
  try {
    await adminClient.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`);
    await adminClient.query(`CREATE DATABASE "${TEMPLATE_DB}"`);
  } finally {
    await adminClient.end();
  }
  execFileSync(path.join(root, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: urlFor(TEMPLATE_DB) },
    stdio: 'inherit',
  });
}
