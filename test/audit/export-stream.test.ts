// A large export streams from a server-side COPY: the API's memory stays flat while the client reads slowly.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints } from '../support/audit-factories';

const ROWS = 100_000;
let api: TestApi;
let auditor: string;

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  const [ep] = await createEndpoints(api.db.url, 1);
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  try {
    // ~1.4 KB of record per row: ~140 MB of NDJSON, far more than the heap growth allowed below.
    await db.query(
      `INSERT INTO hook_runs (id, started_at, endpoint_id, group_id, seq, record_hash, event, hook_key, status, record)
       SELECT gen_random_uuid(), timestamptz '2026-11-10' + g * interval '1 second', $1, $2, g, 'h', 'PreToolUse', 'k',
              'ran', jsonb_build_object('seq', g, 'pad', repeat('x', 1400))
         FROM generate_series(1, ${ROWS}) AS g`,
      [ep!.id, ep!.groupId],
    );
  } finally {
    await db.end();
  }
}, 120_000);

afterAll(async () => {
  await api?.close();
});

it('streams a 100,000-row NDJSON export with flat memory', async () => {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = 0;
  const res = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=ndjson`, {
    headers: { authorization: `Bearer ${auditor}` },
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let bytes = 0;
  let newlines = 0;
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (const b of value) if (b === 10) newlines++;
    if (++chunks % 200 === 0) {
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      await new Promise((r) => setTimeout(r, 1)); // a slow reader: backpressure must hold the rows in PostgreSQL
    }
  }
  expect(newlines).toBe(ROWS);
  expect(bytes).toBeGreaterThan(130_000_000);
  // Holding the export in memory would need > 130 MB of heap; streaming stays within a few buffers.
  expect(peak).toBeLessThan(64 * 1024 * 1024);
}, 120_000);
