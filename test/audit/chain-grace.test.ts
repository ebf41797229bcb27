// Out-of-order batches across retries: no false gap findings while the grace period runs (own API: own process).
import pg from 'pg';
import { expect, it } from 'vitest';
import { startTestApi } from '../support/api';
import { chainedLines, eventually } from '../support/audit-factories';
import { keyedEndpoints } from '../support/identity';
import { startTestWorker } from '../support/worker';

it('does not report out-of-order batches as gaps once the late records arrive (grace period)', async () => {
  const graceApi = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '30' });
  const graceWorker = await startTestWorker(graceApi.config);
  try {
    const [ep] = await keyedEndpoints(graceApi, 1);
    const { lines } = chainedLines(6);
    const send = (ls: string[]) =>
      ep!.call('POST', '/v1/agent/hook-runs', {
        headers: { 'content-type': 'application/x-ndjson' },
        body: ls.join('\n'),
      });
    expect((await send(lines.slice(3))).status).toBe(202);
    const pool = new pg.Pool({ connectionString: graceApi.db.url, max: 1 });
    try {
      await eventually(async () => {
        const r = await pool.query('SELECT count(*)::int AS n FROM hook_runs');
        return (r.rows[0] as { n: number }).n === 3;
      });
      expect((await send(lines.slice(0, 3))).status).toBe(202);
      await eventually(async () => {
        const r = await pool.query('SELECT next_seq FROM hook_run_chains WHERE endpoint_id = $1', [ep!.id]);
        return (r.rows[0] as { next_seq: string } | undefined)?.next_seq === '7';
      });
      const f = await pool.query('SELECT count(*)::int AS n FROM hook_run_findings');
      expect((f.rows[0] as { n: number }).n).toBe(0);
    } finally {
      await pool.end();
    }
  } finally {
    await graceWorker.close();
    await graceApi.close();
  }
});
