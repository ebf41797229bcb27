// The bench dataset: a dedicated database with hook_runs holding 10 million rows over 10,000 endpoints and 90 days,
// generated with generate_series (indexes dropped during the load and rebuilt after). Reused when already present.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 10_000_000);
export const ENDPOINTS = 10_000;
export const GROUPS = 100;
export const DAYS = 90;

// Connection URL of a database on the local server.
export function urlFor(db) {
  const base = new URL(process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/${db}`;
  return base.toString();
}

// The deterministic endpoint / group ids used by the generator (md5-based uuids).
export const endpointIdSql = (n) => `md5('ep' || (${n}))::uuid`;
export const groupIdSql = (n) => `md5('grp' || ((${n}) % ${GROUPS}))::uuid`;

// Creates and migrates the bench database if needed; returns its URL.
export async function ensureDatabase(name) {
  const admin = new pg.Client({ connectionString: urlFor('postgres') });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = urlFor(name);
  execFileSync(path.join(root, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return url;
}

// Fills hook_runs with ROWS rows unless it already holds them; returns the data's time range.
export async function ensureRows(url, say) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const meta = await db.query(`SELECT obj_description('hook_runs'::regclass) AS d`);
    const marker = `bench rows=${ROWS}`;
    if (meta.rows[0]?.d?.startsWith(marker)) {
      const end = new Date(meta.rows[0].d.split(' end=')[1]);
      say(`reusing the bench dataset (${ROWS.toLocaleString()} rows, ending ${end.toISOString()})`);
      return { end };
    }
    say(`generating ${ROWS.toLocaleString()} rows over ${ENDPOINTS} endpoints and ${DAYS} days (once; reused later)…`);
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db.query('TRUNCATE hook_runs, hook_run_hourly');
    // Partitions for the 90 days (and the current/next months).
    for (let m = -4; m <= 1; m++) {
      const s = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + m, 1));
      const e = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + m + 1, 1));
      const name = `hook_runs_p${s.getUTCFullYear()}${String(s.getUTCMonth() + 1).padStart(2, '0')}`;
      await db.query(
        `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF hook_runs FOR VALUES FROM ('${s.toISOString()}') TO ('${e.toISOString()}')`,
      );
    }
    const idx = await db.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'hook_runs' AND indexname <> 'hook_runs_pkey'`,
    );
    for (const { indexname } of idx.rows) await db.query(`DROP INDEX IF EXISTS "${indexname}"`);
    await db.query('ALTER TABLE hook_runs DROP CONSTRAINT IF EXISTS hook_runs_pkey');
    await db.query('SET synchronous_commit = off');
    const chunk = 500_000;
    const t0 = Date.now();
    for (let from = 1; from <= ROWS; from += chunk) {
      const to = Math.min(ROWS, from + chunk - 1);
      await db.query(
        `INSERT INTO hook_runs (id, started_at, endpoint_id, group_id, seq, prev_hash, record_hash, event, tool_name,
           hook_key, hook_hash, managed, status, skip_reason, decision, policy_revision, policy_digest, session_id,
           turn_id, duration_ms, exit_code, timed_out, received_at, record)
         SELECT id, ts, ${endpointIdSql('e')}, ${groupIdSql('e')}, g, NULL, md5(g::text), ev, tool, hk,
                'sha256:' || md5(hk), managed, st, CASE WHEN st = 'skipped' THEN 'untrusted' END, dec,
                (1 + (g / 100000) % 5)::text, 'sha256:' || md5('policy'), 's-' || (g / 40), 't-' || (g / 4),
                (g % 900), CASE WHEN st = 'failed' THEN 1 ELSE 0 END, st = 'timed_out', ts,
                jsonb_build_object('schemaVersion', 1, 'id', id, 'seq', g, 'event', ev, 'matcherInput', tool,
                  'hook', jsonb_build_object('key', hk, 'managed', managed, 'layer', 'managed'),
                  'status', st, 'decision', dec, 'startedAt', ts, 'durationMs', g % 900,
                  'stdout', jsonb_build_object('bytes', 2, 'sha256', md5(g::text) || md5(g::text), 'excerpt', 'ok'))
           FROM (SELECT g, gen_random_uuid() AS id, g % ${ENDPOINTS} AS e,
                        $1::timestamptz - (random() * interval '${DAYS} days') AS ts,
                        (ARRAY['PreToolUse','PostToolUse','UserPromptSubmit','Stop','SessionStart'])[1 + g % 5] AS ev,
                        CASE WHEN g % 5 IN (0, 1) THEN (ARRAY['Bash','Write','Edit','Read'])[1 + (g / 5) % 4] END AS tool,
                        'req.toml:' || (ARRAY['pre_tool_use','post_tool_use','user_prompt_submit','stop','session_start'])[1 + g % 5] || ':0:' || (g / 7) % 20 AS hk,
                        (g % 3) <> 0 AS managed,
                        CASE WHEN r < 0.90 THEN 'ran' WHEN r < 0.95 THEN 'skipped' WHEN r < 0.98 THEN 'failed' ELSE 'timed_out' END AS st,
                        CASE WHEN g % 5 = 0 AND r2 < 0.04 THEN 'deny' WHEN g % 5 = 3 AND r2 < 0.02 THEN 'block'
                             WHEN g % 5 = 0 THEN 'allow' END AS dec
                   FROM (SELECT g, random() AS r, random() AS r2 FROM generate_series($2::int, $3::int) AS g) s) x`,
        [end.toISOString(), from, to],
      );
      const rate = Math.round(to / ((Date.now() - t0) / 1000));
      say(`  ${to.toLocaleString()} rows (${rate.toLocaleString()}/s)`);
    }
    say('  rebuilding the primary key and indexes…');
    await db.query(`SET maintenance_work_mem = '1GB'`);
    await db.query('ALTER TABLE hook_runs ADD CONSTRAINT hook_runs_pkey PRIMARY KEY (id, started_at)');
    // pg_indexes shows a parent's index as `ON ONLY` (no partition indexes): build them on every partition.
    for (const { indexdef } of idx.rows) await db.query(indexdef.replace(' ON ONLY ', ' ON '));
    // The hourly rollup, as ingest keeps it (the migration's backfill query).
    await db.query(
      `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
       SELECT date_bin('1 hour', started_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), group_id, event,
              coalesce(decision, ''), status, coalesce(policy_revision, ''), count(*)
         FROM hook_runs GROUP BY 1, 2, 3, 4, 5, 6`,
    );
    await db.query('VACUUM ANALYZE hook_runs');
    await db.query('VACUUM ANALYZE hook_run_hourly');
    await db.query(`COMMENT ON TABLE hook_runs IS '${marker} end=${end.toISOString()}'`);
    say(`  dataset ready in ${Math.round((Date.now() - t0) / 1000)} s`);
    return { end };
  } finally {
    await db.end();
  }
}
