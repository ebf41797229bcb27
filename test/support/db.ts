// Per-test-file PostgreSQL databases, cloned from a migrated template so files run in parallel.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const ADMIN_URL = process.env.HW_TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEMPLATE_DB = 'hookwarden_test_template';

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

// Runs one statement on the maintenance database.
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// Creates a fresh, fully migrated database owned by the calling test file.
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `hw_t_${randomBytes(6).toString('hex')}`;
  // CREATE DATABASE ... TEMPLATE fails if another session is connected to the template: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`);
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  return {
    name,
    url: urlFor(name),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
