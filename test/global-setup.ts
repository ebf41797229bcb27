// Vitest global setup: names this run (HW_TEST_RUN_PREFIX, inherited by every test worker), makes sure the migrated
// template database for this checkout's migrations exists, and says once when the shared corpus is absent. The
// teardown removes this run's databases and Redis keys — and nothing of any other run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { admin, runDatabasePattern, TEMPLATE_DB, urlFor } from './support/db';
import { haPostgresSkipLine } from './support/ha/postgres';
import { RUN_PREFIX, RUN_PREFIX_PATTERN, TEST_REDIS_URL } from './support/run';
import { HAS_SHARED, SHARED_DIR, SHARED_NEEDS, SHARED_SUITES } from './support/shared';

const root = path.resolve(__dirname, '..');
const LOCK_KEY = 0x48_57_54_50; // serializes template creation across concurrent test runs

export default async function setup(): Promise<() => Promise<void>> {
  if (!RUN_PREFIX_PATTERN.test(RUN_PREFIX))
    throw new Error(
      `HW_TEST_RUN_PREFIX=${RUN_PREFIX}: use 3-40 lower-case letters, digits or _, starting with a letter`,
    );
  // The Windows suite (test/windows, under Wine): one line when it cannot run here (under CI=true its files fail).
  if (process.env.CI !== 'true' && spawnSync('wine', ['--version'], { stdio: 'ignore' }).status !== 0)
    console.log(
      'wine not found: skipping test/windows (the agent and engine on Windows, under Wine) — ' +
        'apt-get install -y --no-install-recommends wine wine64 to run it',
    );
  // The HA PostgreSQL suites (test/ha: Patroni + etcd + HAProxy): one line when they cannot run here.
  const haPostgres = haPostgresSkipLine();
  if (haPostgres && process.env.CI !== 'true') console.log(haPostgres);
  if (!HAS_SHARED) {
    const missing = SHARED_NEEDS.filter((p) => !existsSync(p)).join(', ');
    if (process.env.CI === 'true')
      throw new Error(`CI=true and the shared corpus/vectors are missing (${missing}): set HW_SHARED_DIR`);
    console.log(
      `shared corpus/spec/vectors not found at ${SHARED_DIR}: skipping ${SHARED_SUITES.join('; ')} — ` +
        'to run them, put the shared folder at ../shared beside the repository or set HW_SHARED_DIR=/path/to/shared',
    );
  }
  await admin(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB]);
      if (exists.rowCount !== 0) return;
      const building = `${TEMPLATE_DB}_build`;
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${building}"`);
      try {
        execFileSync(path.join(root, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: urlFor(building), PRISMA_HIDE_UPDATE_MESSAGE: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
          encoding: 'utf8',
        });
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`prisma migrate deploy of the test template failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
      }
      // Renamed only once complete, so an interrupted run never leaves a half-migrated template.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${TEMPLATE_DB}"`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  });
  return teardown;
}

// Drops this run's databases and deletes this run's Redis keys (the template is a cache keyed by the migrations).
async function teardown(): Promise<void> {
  await admin(async (client) => {
    const dbs = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      runDatabasePattern(),
    ]);
    for (const { datname } of dbs.rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN_PREFIX}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch (err) {
    console.warn(`test teardown: could not delete Redis keys ${RUN_PREFIX}:* (${(err as Error).message})`);
  } finally {
    redis.disconnect();
  }
}
