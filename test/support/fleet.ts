// A seeded fleet for the fleet console's tests and bench: groups, policies and releases authored through the real
// API (one release paused with a reason, one rolling), then thousands of endpoints, their open findings, inventoried
// hooks and hook runs written straight into the database with set-based SQL (seconds, not minutes).
import pg from 'pg';
import { call } from './http';
import { SCRIPT, VALID_TOML } from './policies';

export interface FleetSeed {
  groups: { alpha: string; beta: string; gamma: string; empty: string; default: string };
  policies: { alpha: string; beta: string };
  releases: { alphaApplied: string; alphaPaused: string; betaRolling: string };
  pausedReason: string;
  endpoints: number;
  runs: number;
}

/** How endpoint number i (1..n) is made: readable rules the tests reproduce in SQL when they count. */
export const SEED_RULES = {
  failed: 'i % 97 = 0',
  never: 'i % 211 = 0',
  stale: 'i % 53 = 0',
  revoked: 'i % 401 = 0',
  pending: 'i % 503 = 0',
} as const;

// Authors through the API; throws with the answer when a call does not succeed.
async function must(baseUrl: string, token: string, method: string, p: string, body?: unknown) {
  const res = await call(baseUrl, method, p, { token, ...(body === undefined ? {} : { body }) });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// Seeds the fleet into the API's database (`dbUrl`) through the API at `baseUrl` (admin `token`).
export async function seedFleet(
  baseUrl: string,
  token: string,
  dbUrl: string,
  opts: { endpoints?: number; runs?: number } = {},
): Promise<FleetSeed> {
  const n = opts.endpoints ?? 2000;
  const runs = opts.runs ?? 100_000;
  const api = (method: string, p: string, body?: unknown) => must(baseUrl, token, method, p, body);
  const groups = (await api('GET', '/v1/groups?limit=200')).items as Array<{ id: string; isDefault: boolean }>;
  const def = groups.find((g) => g.isDefault)!.id;
  const group = async (name: string): Promise<string> => (await api('POST', '/v1/groups', { name })).id;
  const alpha = await group('fleet-alpha');
  const beta = await group('fleet-beta');
  const gamma = await group('fleet-gamma');
  const empty = await group('fleet-empty');
  const policy = async (name: string, groupId: string): Promise<string> =>
    (await api('POST', '/v1/policies', { name, groupId })).id;
  const version = async (policyId: string, message: string, baseVersion?: number): Promise<string> =>
    (
      await api('POST', `/v1/policies/${policyId}/versions`, {
        toml: VALID_TOML.replace('Checking Bash command', `Checking Bash (${message})`),
        files: [SCRIPT],
        message,
        ...(baseVersion ? { baseVersion } : {}),
      })
    ).id;
  const pAlpha = await policy('alpha-baseline', alpha);
  const pBeta = await policy('beta-guardrails', beta);
  const a1 = await version(pAlpha, 'first alpha baseline');
  const alphaApplied = (await api('POST', `/v1/groups/${alpha}/releases`, { policyVersionId: a1 })).id as string;
  const a2 = await version(pAlpha, 'tighten bash matcher', 1);
  const alphaPaused = (
    await api('POST', `/v1/groups/${alpha}/releases`, {
      policyVersionId: a2,
      strategy: 'staged',
      rings: [10, 50, 100],
    })
  ).id as string;
  const pausedReason = 'apply failures above the gate in ring 1';
  await api('POST', `/v1/releases/${alphaPaused}/pause`, { reason: pausedReason });
  const b1 = await version(pBeta, 'beta guardrails');
  const betaRolling = (
    await api('POST', `/v1/groups/${beta}/releases`, { policyVersionId: b1, strategy: 'staged', rings: [20, 100] })
  ).id as string;

  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query('SET synchronous_commit = off');
    // Endpoints: groups by i % 10 (alpha 4/10, beta 3/10, gamma 2/10, default 1/10), platforms and agent versions
    // in turn, a few failed, drifted, stale, never seen, revoked and pending approval.
    await db.query(
      `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash, admission,
         enrolled_at, credential_at, last_seen_at, revoked_at, state, applied_revision, applied_release_id)
       SELECT md5('fleet-ep' || i)::uuid,
              CASE WHEN i % 10 < 4 THEN $1::uuid WHEN i % 10 < 7 THEN $2::uuid WHEN i % 10 < 9 THEN $3::uuid
                   ELSE $4::uuid END,
              'machine-' || i,
              CASE WHEN i % 50 = 0 THEN 'build-agent-' || lpad(i::text, 4, '0') ELSE 'dev-' || lpad(i::text, 4, '0') END,
              (ARRAY['linux', 'darwin', 'windows'])[1 + i % 3],
              (ARRAY['1.0.0', '1.1.0', '1.2.0'])[1 + (i / 7) % 3],
              md5('fleet-cred' || i),
              CASE WHEN ${SEED_RULES.pending} THEN 'pending' ELSE 'active' END,
              now() - i * interval '1 minute', now() - i * interval '1 minute',
              CASE WHEN ${SEED_RULES.never} THEN NULL WHEN ${SEED_RULES.stale} THEN now() - interval '3 days'
                   ELSE now() - (i % 600) * interval '1 second' END,
              CASE WHEN ${SEED_RULES.revoked} THEN now() END,
              CASE WHEN ${SEED_RULES.failed} THEN 'failed' WHEN i % 89 = 0 THEN 'drifted' WHEN i % 13 = 0 THEN 'pending'
                   ELSE 'applied' END,
              CASE WHEN i % 10 < 4 AND i % 13 <> 0 THEN 1 END,
              CASE WHEN i % 10 < 4 AND i % 13 <> 0 THEN $5::uuid END
         FROM generate_series(1, $6::int) AS i`,
      [alpha, beta, gamma, def, alphaApplied, n],
    );
    // Open findings (some endpoints two), and a few resolved ones that must not count.
    await db.query(
      `INSERT INTO hook_run_findings (id, endpoint_id, group_id, kind, from_seq, to_seq, detected_at, resolved_at)
       SELECT gen_random_uuid(), e.id, e.group_id, k.kind, 1, 2, now() - interval '1 hour',
              CASE WHEN k.kind = 'dropped' THEN now() END
         FROM endpoints e
         JOIN generate_series(1, $1::int) AS i ON e.id = md5('fleet-ep' || i)::uuid
         JOIN LATERAL (SELECT 'missing_range' AS kind WHERE i % 37 = 0
                       UNION ALL SELECT 'broken_link' WHERE i % 74 = 0
                       UNION ALL SELECT 'dropped' WHERE i % 41 = 0) k ON true`,
      [n],
    );
    // Two inventoried hooks per endpoint (20 shared definitions), their commands captured.
    await db.query(
      `INSERT INTO endpoint_inventory_hooks (endpoint_id, group_id, "user", layer, event, matcher, key, hash, trust,
         managed, fate, program, command)
       SELECT md5('fleet-ep' || i)::uuid, e.group_id, 'dev', 'user', 'PreToolUse', '^Bash$',
              'user:hook-' || ((i + h) % 20), 'sha256:' || md5('fleet-hook' || ((i + h) % 20)), 'trusted', false, 'run',
              'python3', 'python3 ~/hooks/check-' || ((i + h) % 20) || '.py --fleet'
         FROM generate_series(1, $1::int) AS i CROSS JOIN generate_series(0, 1) AS h
         JOIN endpoints e ON e.id = md5('fleet-ep' || i)::uuid`,
      [n],
    );
    // Hook runs over the last 7 days (partitions for the months they fall in) and the hourly rollup ingest keeps.
    const now = new Date();
    for (const m of [-1, 0, 1]) {
      const s = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + m, 1));
      const e = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + m + 1, 1));
      const name = `hook_runs_p${s.getUTCFullYear()}${String(s.getUTCMonth() + 1).padStart(2, '0')}`;
      await db.query(
        `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF hook_runs FOR VALUES FROM ('${s.toISOString()}') TO ('${e.toISOString()}')`,
      );
    }
    await db.query(
      `INSERT INTO hook_runs (id, started_at, endpoint_id, group_id, seq, prev_hash, record_hash, event, tool_name,
         hook_key, hook_hash, managed, status, skip_reason, decision, policy_revision, policy_digest, session_id,
         duration_ms, exit_code, timed_out, received_at, record)
       SELECT id, ts, md5('fleet-ep' || ep)::uuid, grp, g, NULL, md5(g::text), ev, tool, hk, 'sha256:' || md5(hk),
              managed, st, CASE WHEN st = 'skipped' THEN 'untrusted' END, dec, '1', 'sha256:' || md5('policy'),
              's-' || (g / 40), g % 900, CASE WHEN st = 'failed' THEN 1 ELSE 0 END, st = 'timed_out', ts,
              jsonb_build_object('schemaVersion', 1, 'id', id, 'seq', g, 'event', ev, 'matcherInput', tool,
                'hook', jsonb_build_object('key', hk, 'managed', managed, 'layer', 'managed'),
                'status', st, 'decision', dec, 'startedAt', ts, 'durationMs', g % 900)
         FROM (SELECT g, gen_random_uuid() AS id, 1 + g % $2::int AS ep,
                      CASE WHEN (1 + g % $2::int) % 10 < 4 THEN $3::uuid WHEN (1 + g % $2::int) % 10 < 7 THEN $4::uuid
                           WHEN (1 + g % $2::int) % 10 < 9 THEN $5::uuid ELSE $6::uuid END AS grp,
                      $7::timestamptz - ((g * 6047) % 604800) * interval '1 second' AS ts,
                      (ARRAY['PreToolUse','PostToolUse','UserPromptSubmit','Stop','SessionStart'])[1 + g % 5] AS ev,
                      CASE WHEN g % 5 IN (0, 1) THEN (ARRAY['Bash','Write','Edit','Read'])[1 + (g / 5) % 4] END AS tool,
                      'req.toml:' || (ARRAY['pre_tool_use','post_tool_use','user_prompt_submit','stop','session_start'])[1 + g % 5] || ':0:' || (g / 7) % 20 AS hk,
                      (g % 3) <> 0 AS managed,
                      CASE WHEN g % 50 = 1 THEN 'failed' WHEN g % 50 = 2 THEN 'skipped' WHEN g % 97 = 3 THEN 'timed_out'
                           ELSE 'ran' END AS st,
                      CASE WHEN g % 5 = 0 AND g % 25 = 0 THEN 'deny' WHEN g % 5 = 3 AND g % 45 = 3 THEN 'block'
                           WHEN g % 5 = 0 THEN 'allow' END AS dec
                 FROM generate_series(1, $1::int) AS g) x`,
      [runs, n, alpha, beta, gamma, def, now.toISOString()],
    );
    await db.query(
      `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
       SELECT date_bin('1 hour', started_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), group_id, event,
              coalesce(decision, ''), status, coalesce(policy_revision, ''), count(*)
         FROM hook_runs GROUP BY 1, 2, 3, 4, 5, 6`,
    );
    await db.query('ANALYZE endpoints');
    await db.query('ANALYZE hook_runs');
    await db.query('ANALYZE hook_run_findings');
    await db.query('ANALYZE endpoint_inventory_hooks');
  } finally {
    await db.end();
  }
  return {
    groups: { alpha, beta, gamma, empty, default: def },
    policies: { alpha: pAlpha, beta: pBeta },
    releases: { alphaApplied, alphaPaused, betaRolling },
    pausedReason,
    endpoints: n,
    runs,
  };
}
