// Streaming to a real syslog collector (Debian's rsyslogd on loopback, RFC 5424 over TCP with octet-counting, over
// TLS through rsyslog-gnutls): every record arrives once, parsable, in order per endpoint; the collector stopped for
// HW_STREAM_OUTAGE_SEC (default 30 s) during a HW_STREAM_RECORDS-record (default 10,000) ingest from real agents, then
// restarted: no gap, duplicates only from a batch the collector read while it was going away (at-least-once), the
// cursor resumes, retries back off (never a busy loop), and ingest never waited for the collector.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCredentials } from '../../apps/agent-sync/src/state/credentials';
import { startTestApi, type TestApi } from '../support/api';
import { chainedLines, createEndpoints, eventually, ingestRecords, runRecord } from '../support/audit-factories';
import { call } from '../support/http';
import { RSYSLOGD, rsyslog, type Rsyslog } from '../support/rsyslog';
import { startTestWorker } from '../support/worker';

const run = promisify(execFile);
// A synchronous check as eventually() takes it.
const sync =
  <T>(check: () => T) =>
  (): Promise<T> =>
    Promise.resolve(check());
const AGENT = path.resolve(__dirname, '../../apps/agent-sync/dist/cli/main.js');
const OUTAGE_SEC = Number(process.env.HW_STREAM_OUTAGE_SEC ?? 30);
const RECORDS = Number(process.env.HW_STREAM_RECORDS ?? 10_000);
const AGENTS = 4;
const WAVES = 8;
const present = existsSync(RSYSLOGD);
if (!present && process.env.CI === 'true') throw new Error(`streaming-syslog: ${RSYSLOGD} is missing under CI=true`);
if (!present) console.log(`streaming-syslog: skipped, ${RSYSLOGD} is missing (apt-get install rsyslog rsyslog-gnutls)`);

let api: TestApi;
let worker: INestApplicationContext;
let dir: string;
const collectors: Rsyslog[] = [];

/** One parsed RFC 5424 message. */
interface Parsed {
  pri: number;
  msgid: string;
  sd: Record<string, string>;
  doc: { id: string; stream: string; sequence: string; type: string; data: Record<string, any> };
}

const LINE =
  /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) \[hookwarden@32473((?: [a-z]+="(?:[^"\\\]]|\\.)*")*)\] (\{.*\})$/;

// Parses one received line; throws naming it when it is not an RFC 5424 message of ours.
function parse(line: string): Parsed {
  const m = LINE.exec(line);
  if (!m) throw new Error(`not an RFC 5424 message: ${line.slice(0, 200)}`);
  const sd: Record<string, string> = {};
  for (const p of m[7]!.matchAll(/ ([a-z]+)="((?:[^"\\\]]|\\.)*)"/g)) sd[p[1]!] = p[2]!;
  expect(Number.isNaN(Date.parse(m[2]!))).toBe(false);
  return { pri: Number(m[1]), msgid: m[6]!, sd, doc: JSON.parse(m[8]!) };
}

beforeAll(async () => {
  if (!present) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'hw-stream-syslog-'));
  api = await startTestApi({
    STREAM_POLL_MS: '200',
    STREAM_BACKOFF_BASE_MS: '200',
    STREAM_BACKOFF_MAX_MS: '2000',
    HOOK_RUN_GAP_GRACE_SEC: '0',
  });
  worker = await startTestWorker(api.config);
}, 120_000);

afterAll(async () => {
  for (const c of collectors) await c.stop();
  await worker?.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Creates a destination and returns its id.
async function destination(body: Record<string, unknown>): Promise<string> {
  const res = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', { token: api.adminToken, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe.skipIf(!present)('streaming to rsyslog', () => {
  it('every record and audit entry arrives once, parsable, in order per endpoint', async () => {
    const c = await rsyslog(path.join(dir, 'plain'));
    collectors.push(c);
    await c.start();
    const id = await destination({
      name: 'rsyslog-plain',
      target: { type: 'syslog_tcp', host: '127.0.0.1', port: c.port, facility: 16 },
      streams: { hookRuns: {}, auditLog: {} },
      batchMaxEvents: 40,
      batchMaxBytes: 16 * 1024,
    });
    const eps = await createEndpoints(api.db.url, 2);
    const ids = new Set<string>();
    for (const ep of eps) {
      const records = Array.from({ length: 60 }, (_, i) =>
        runRecord({ seq: i + 1, decision: i % 10 === 0 ? 'deny' : null }),
      );
      for (let i = 0; i < 60; i += 20) await ingestRecords(api, ep, records.slice(i, i + 20));
      for (const r of records) ids.add(`hookrun:${ep.id}:${r.id}`);
    }
    const group = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'streamed' } });
    expect(group.status).toBe(201);
    // Counted without parsing (a line that does not parse fails below, naming it, instead of being retried).
    const received = await eventually(
      sync(() => {
        const lines = c.messages();
        return lines.length >= ids.size + 2 ? lines : null; // + destination.create and group.create
      }),
      60_000,
    ).catch(async (err: Error) => {
      const d = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: api.adminToken });
      throw new Error(`${err.message}: ${c.messages().length} lines received; destination ${JSON.stringify(d.body)}`);
    });
    const parsed = received.map(parse);
    const hookRuns = parsed.filter((p) => p.doc.stream === 'hookRuns');
    expect(hookRuns.map((p) => p.doc.id).sort()).toEqual([...ids].sort());
    expect(new Set(parsed.map((p) => p.doc.id)).size).toBe(parsed.length); // once each
    for (const ep of eps) {
      const seqs = hookRuns.filter((p) => p.doc.data.endpointId === ep.id).map((p) => p.doc.data.seq as number);
      expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    }
    // Structured data names the event; a denial is a warning (local0 = 16: PRI 16*8+4), others info.
    for (const p of hookRuns) {
      expect(p.sd.id).toBe(p.doc.id);
      expect(p.msgid).toBe('hook_run');
      expect(p.pri).toBe(p.doc.data.decision === 'deny' ? 132 : 134);
    }
    // Per-destination sequence numbers per stream, without a gap.
    expect(hookRuns.map((p) => Number(p.doc.sequence))).toEqual(Array.from({ length: ids.size }, (_, i) => i + 1));
    const audit = parsed.filter((p) => p.doc.stream === 'auditLog').map((p) => p.doc.data.action);
    expect(audit).toContain('group.create');
  }, 90_000);

  it(
    `the collector stopped ${OUTAGE_SEC} s during a ${RECORDS}-record ingest from real agents: no gap, cursor resumes, retries back off`,
    async () => {
      const c = await rsyslog(path.join(dir, 'outage'));
      collectors.push(c);
      await c.start();
      const id = await destination({
        name: 'rsyslog-outage',
        target: { type: 'syslog_tcp', host: '127.0.0.1', port: c.port },
        streams: { hookRuns: {} },
        batchMaxEvents: 500,
        deadLetterAfterSec: 3600,
      });
      // Real agents (legacy bearer credentials) ship spool segments the test writes in waves.
      const eps = await createEndpoints(api.db.url, AGENTS);
      const agents = await Promise.all(
        eps.map(async (ep, i) => {
          const state = path.join(dir, `agent-${i}`);
          mkdirSync(path.join(state, 'spool'), { recursive: true });
          await writeCredentials(state, {
            serverUrl: api.baseUrl,
            endpointId: ep.id,
            groupId: ep.groupId,
            credential: ep.credential,
            machineId: `m-${ep.id}`,
            publicKeys: [{ kid: 'unused', publicKeyPem: 'unused' }],
            enrolledAt: new Date().toISOString(),
          });
          return { ep, state, next: 1, prev: null as string | null, ids: [] as string[] };
        }),
      );
      const perWave = Math.ceil(RECORDS / AGENTS / WAVES);
      const pad = (n: number): string => String(n).padStart(12, '0');
      const db = new pg.Pool({ connectionString: api.db.url, max: 2 });
      const stored = async (): Promise<number> =>
        (await db.query('SELECT count(*)::int AS n FROM hook_runs WHERE group_id = $1', [eps[0]!.groupId])).rows[0].n;
      let stoppedAt = 0;
      try {
        for (let w = 0; w < WAVES; w++) {
          if (w === 2) {
            await c.stop();
            stoppedAt = Date.now();
          }
          await Promise.all(
            agents.map(async (a) => {
              const count = Math.min(perWave, RECORDS / AGENTS - (a.next - 1));
              if (count <= 0) return;
              const { lines, lastHash } = chainedLines(count, a.next, { decision: 'allow' }, a.prev);
              for (const l of lines) a.ids.push(`hookrun:${a.ep.id}:${(JSON.parse(l) as { id: string }).id}`);
              writeFileSync(
                path.join(a.state, 'spool', `seg-${pad(a.next)}-${pad(a.next + count - 1)}.ndjson`),
                lines.join('\n') + '\n',
              );
              a.next += count;
              a.prev = lastHash;
              await run(process.execPath, [AGENT, 'upload-runs', '--once', '--state-dir', a.state]);
            }),
          );
        }
        // Ingest finishes while the collector is down: streaming never held it.
        await eventually(async () => (await stored()) === RECORDS, 120_000);
        const down = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: api.adminToken });
        const elapsed = (Date.now() - stoppedAt) / 1000;
        if (elapsed < OUTAGE_SEC) {
          expect(down.body.state).toBe('failing');
          expect(down.body.lastError).toMatch(/syslog:\/\/127\.0\.0\.1:\d+: .*(ECONNREFUSED|ECONNRESET|EPIPE|closed)/);
          expect(down.body.lagSec).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, (OUTAGE_SEC - elapsed) * 1000));
        }
        const before = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: api.adminToken });
        // Backoff (200 ms doubling to 2 s, half of it jitter: at least 1 s apart once capped); a busy loop at the
        // 200 ms poll would try 5 times a second.
        const downSec = (Date.now() - stoppedAt) / 1000;
        expect(before.body.attempts).toBeGreaterThan(0);
        expect(before.body.attempts).toBeLessThanOrEqual(Math.ceil(downSec) + 8);
        await c.start();
        const all = agents.flatMap((a) => a.ids);
        const parsed = await eventually(
          sync(() => {
            const lines = c.messages().map(parse);
            return new Set(lines.map((p) => p.doc.id)).size >= all.length ? lines : null;
          }),
          180_000,
        );
        // No gap: every record arrived; duplicates only of ids that were re-sent after a failed batch.
        const seen = new Map<string, number>();
        for (const p of parsed) seen.set(p.doc.id, (seen.get(p.doc.id) ?? 0) + 1);
        expect([...seen.keys()].sort()).toEqual([...all].sort());
        const dupes = [...seen.values()].filter((n) => n > 1).length;
        expect(dupes).toBeLessThanOrEqual(2 * 500);
        // In order per endpoint (first arrival of each record), and the per-destination sequence has no gap.
        for (const a of agents) {
          const firsts: number[] = [];
          const once = new Set<string>();
          for (const p of parsed)
            if (p.doc.data.endpointId === a.ep.id && !once.has(p.doc.id)) {
              once.add(p.doc.id);
              firsts.push(p.doc.data.seq as number);
            }
          expect(firsts).toEqual(Array.from({ length: RECORDS / AGENTS }, (_, i) => i + 1));
        }
        const sequences = new Set(parsed.map((p) => Number(p.doc.sequence)));
        expect(sequences.size).toBe(all.length);
        expect(Math.max(...sequences)).toBe(all.length);
        // The cursor resumed: caught up, state active, every record counted once.
        const after = await eventually(async () => {
          const r = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: api.adminToken });
          return r.body.state === 'active' && r.body.lagSec === 0 ? r.body : null;
        }, 30_000);
        expect(after.deliveredCount).toBe(all.length);
        expect(after.lastError).toBeTruthy(); // the outage stays visible
        console.log(
          `streaming-syslog: ${all.length} records, collector down ${((Date.now() - stoppedAt) / 1000).toFixed(0)} s, ` +
            `${before.body.attempts} attempts while down, ${dupes} duplicate(s)`,
        );
        const metrics = await call(api.baseUrl, 'GET', '/metrics', { token: api.adminToken });
        expect(String(metrics.body)).toContain(
          `hookwarden_stream_delivered_total{destination="rsyslog-outage",type="syslog_tcp"} ${all.length}`,
        );
      } finally {
        await db.end();
      }
    },
    (OUTAGE_SEC + 400) * 1000,
  );

  it('over TLS with the collector’s CA pinned; a collector with another CA is refused', async () => {
    const tlsDir = path.join(dir, 'tls');
    mkdirSync(tlsDir, { recursive: true });
    const ssl = (args: string[]) => run('openssl', args, { cwd: tlsDir });
    for (const name of ['ca', 'other']) {
      await ssl([
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
      ]);
    }
    await ssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    ]);
    writeFileSync(path.join(tlsDir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    await ssl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
      '-out',
      'server.pem',
    ]);
    const c = await rsyslog(tlsDir, {
      ca: path.join(tlsDir, 'ca.pem'),
      cert: path.join(tlsDir, 'server.pem'),
      key: path.join(tlsDir, 'server.key'),
    });
    collectors.push(c);
    await c.start();
    const target = (ca: string) => ({
      type: 'syslog_tls',
      host: '127.0.0.1',
      port: c.port,
      caPem: readFileSync(path.join(tlsDir, ca), 'utf8'),
    });
    const good = await destination({ name: 'rsyslog-tls', target: target('ca.pem'), streams: { auditLog: {} } });
    const bad = await destination({
      name: 'rsyslog-tls-wrong-ca',
      target: target('other.pem'),
      streams: { auditLog: {} },
    });
    await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'over-tls' } });
    const lines = await eventually(
      sync(() => {
        const m = c.messages().map(parse);
        return m.some((p) => p.doc.data.action === 'group.create' && p.doc.data.details?.name === 'over-tls')
          ? m
          : null;
      }),
      60_000,
    );
    expect(lines.every((p) => p.doc.stream === 'auditLog')).toBe(true);
    const refused = await eventually(async () => {
      const r = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${bad}`, { token: api.adminToken });
      return r.body.state === 'failing' ? r.body : null;
    }, 30_000);
    expect(refused.lastError).toMatch(/certificate|self.signed|unable to verify/i);
    const ok = await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${good}`, { token: api.adminToken });
    expect(ok.body.state).toBe('active');
  }, 120_000);
});
