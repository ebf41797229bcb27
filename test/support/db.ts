// Per-test-file PostgreSQL databases, cloned from a migrated template so files run in parallel.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { RUN_PREFIX } from './run';

export const ADMIN_URL = process.env.HW_TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const MIGRATIONS_DIR = path.resolve(__dirname, '../../prisma/migrations');

// Lists the migration folders in the repository, in order.
export function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

// The template's name depends on the migrations' content, so checkouts with other migrations never collide.
function templateName(): string {
  const hash = createHash('sha256');
  for (const name of migrationNames()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(MIGRATIONS_DIR, name, 'migration.sql')));
  }
  return `hw_tpl_${hash.digest('hex').slice(0, 12)}`;
}

export const TEMPLATE_DB = templateName();

// Returns a connection URL for `database` on the same server as ADMIN_URL.
export function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

// Runs statements on the maintenance database.
export async function admin<T = unknown>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A LIKE pattern matching exactly this run's test databases (`<run prefix>_db_<random>`). */
export function runDatabasePattern(prefix: string = RUN_PREFIX): string {
  return `${prefix.replaceAll('_', '\\_')}\\_db\\_%`;
}

// Creates a fresh, fully migrated database owned by the calling test file (named after this run).
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${RUN_PREFIX}_db_${randomBytes(4).toString('hex')}`;
  // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`));
      break;
    } catch (err) {
      if (attempt >= 30) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  return {
    name,
    url: urlFor(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
