// Real agents for the HA tests: `hookwarden-agent enroll` and `run` processes talking only to HAProxy, their spools
// filled with hook-core's spool writer (what `hooks dispatch` appends), and what the database stored of them.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpoolSink } from '@hookwarden/hook-core';
import type pg from 'pg';
import { type AgentProcess, runAgent, spawnAgent, stopAgent, visibleLayer } from '../agent';
import { runRecord } from '../audit-factories';
import { call } from '../http';

export interface FleetAgent {
  name: string;
  root: string;
  stateDir: string;
  endpointId: string;
  proc: AgentProcess | null;
  /** Records appended to its spool so far (each must be stored exactly once). */
  spooled: number;
}

// Enrolls `n` machines in `groupId` through `url` (in parallel, the real CLI); returns them not yet running.
export async function enrollFleet(
  url: string,
  adminToken: string,
  groupId: string,
  n: number,
  dir: string,
): Promise<FleetAgent[]> {
  const secret = await call(url, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
    token: adminToken,
    body: { name: 'ha' },
  });
  if (secret.status !== 201) throw new Error(`enrollment secret: ${secret.status} ${JSON.stringify(secret.body)}`);
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const name = `agent-${groupId.slice(0, 8)}-${i}`;
      const root = path.join(dir, name, 'root');
      const stateDir = path.join(dir, name, 'state');
      await fs.mkdir(path.join(root, 'etc'), { recursive: true });
      await fs.writeFile(path.join(root, 'etc/machine-id'), `${name}-${Date.now()}-machine\n`);
      // The enroll command is one-shot: an overloaded API's 503 (Retry-After) is retried here, a few times.
      const args = ['enroll', '--server', url, '--secret', secret.body.secret, '--state-dir', stateDir, '--root', root];
      let r = await runAgent(args);
      for (let attempt = 0; r.code !== 0 && / 503 /.test(r.stderr) && attempt < 5; attempt++) {
        await new Promise((res) => setTimeout(res, 1000 * (attempt + 1)));
        r = await runAgent(args);
      }
      if (r.code !== 0) throw new Error(`enroll ${name}: ${r.code} ${r.stderr}`);
      const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')) as {
        endpointId: string;
      };
      return { name, root, stateDir, endpointId: creds.endpointId, proc: null, spooled: 0 };
    }),
  );
}

// Starts `hookwarden-agent run` (long poll of `pollWaitSec`, uploader, retry backoff capped at 2 s).
export function startFleetAgent(a: FleetAgent, pollWaitSec: number): void {
  a.proc = spawnAgent([
    'run',
    '--state-dir',
    a.stateDir,
    '--root',
    a.root,
    '--poll-wait',
    String(pollWaitSec),
    '--no-inventory',
    '--max-backoff',
    '2000',
  ]);
}

// Stops every agent of the fleet.
export async function stopFleet(agents: FleetAgent[]): Promise<void> {
  await Promise.all(agents.map((a) => (a.proc ? stopAgent(a.proc) : Promise.resolve())));
}

// Appends `count` hook-run records to the agent's spool (sequence and chain by hook-core's writer, fsynced).
export async function spoolRecords(a: FleetAgent, count: number): Promise<void> {
  const sink = new SpoolSink(path.join(a.stateDir, 'spool'), { maxSegmentBytes: 256 * 1024 });
  for (let k = 0; k < count; k += 200) {
    const drafts = Array.from({ length: Math.min(200, count - k) }, () => {
      const { seq: _s, prevHash: _p, ...draft } = runRecord({ seq: 1, sessionId: `s-${a.endpointId}` });
      return draft;
    });
    await sink.write(drafts);
  }
  a.spooled += count;
}

// Per agent: rows stored, distinct sequence numbers and ids, highest sequence (all equal to `spooled` when every
// record was stored exactly once).
export async function storedOf(
  pool: pg.Pool,
  agents: FleetAgent[],
): Promise<Map<string, { n: number; seqs: number; ids: number; hi: number }>> {
  const res = await pool.query<{ endpoint_id: string; n: number; seqs: number; ids: number; hi: number }>(
    `SELECT endpoint_id, count(*)::int AS n, count(DISTINCT seq)::int AS seqs, count(DISTINCT id)::int AS ids,
            coalesce(max(seq), 0)::int AS hi
       FROM hook_runs WHERE endpoint_id = ANY($1) GROUP BY endpoint_id`,
    [agents.map((a) => a.endpointId)],
  );
  return new Map(res.rows.map((r) => [r.endpoint_id, { n: r.n, seqs: r.seqs, ids: r.ids, hi: r.hi }]));
}

// True when every agent's records are all stored, each once.
export async function allStoredOnce(pool: pg.Pool, agents: FleetAgent[]): Promise<boolean> {
  const stored = await storedOf(pool, agents);
  return agents.every((a) => {
    const s = stored.get(a.endpointId) ?? { n: 0, seqs: 0, ids: 0, hi: 0 };
    return s.n === a.spooled && s.seqs === a.spooled && s.ids === a.spooled && s.hi === a.spooled;
  });
}

/** The managed directory of the HA tests' policies. */
export const HA_MANAGED_DIR = '/opt/hw-ha';

// The requirements.toml the agent shows on disk now (null before the first bundle).
export async function appliedToml(a: FleetAgent): Promise<string | null> {
  return (await visibleLayer(a.root, HA_MANAGED_DIR))?.['requirements.toml'] ?? null;
}

// Records, while running, the first failed and first later successful probe (the outage a client saw).
export class OutageProbe {
  firstFailure: number | null = null;
  recovered: number | null = null;
  failures = 0;
  successes = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly probe: () => Promise<boolean>,
    private readonly everyMs = 100,
  ) {}

  // Starts probing.
  start(): this {
    this.loop = (async () => {
      while (!this.stopped) {
        const ok = await this.probe().catch(() => false);
        const at = Date.now();
        if (ok) {
          this.successes++;
          if (this.firstFailure !== null && this.recovered === null) this.recovered = at;
        } else {
          this.failures++;
          this.firstFailure ??= at;
        }
        await new Promise((r) => setTimeout(r, this.everyMs));
      }
    })();
    return this;
  }

  /** Seconds from the first failed probe to the first success after it (0 when nothing failed). */
  get outageSec(): number {
    if (this.firstFailure === null) return 0;
    return ((this.recovered ?? Date.now()) - this.firstFailure) / 1000;
  }

  // Stops probing.
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}
