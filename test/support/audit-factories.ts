// Test data for hook-run audit: groups, endpoints with known credentials, auditor tokens, run records.
import { randomUUID } from 'node:crypto';
import { canonicalJson, type HookEvent, type RunRecord, sha256Hex } from '@hookwarden/hook-core';
import { PrismaClient } from '@prisma/client';
import { PrismaPg } from '@prisma/adapter-pg';
import { AGENT_TOKEN_PREFIX, hashSecret, newSecret } from '../../apps/api/src/auth/principal';
import { IngestRepository } from '../../apps/api/src/ingest/ingest.repository';
import { parseUpload } from '../../apps/api/src/ingest/ingest.parse';
import { TokensService } from '../../apps/api/src/tokens/tokens.service';
import type { TestApi } from './api';

export interface TestEndpoint {
  id: string;
  groupId: string;
  credential: string;
}

// A Prisma client on a test database (close it with $disconnect).
export function prismaFor(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
}

// Creates a group and `count` endpoints in it with known credentials (rows inserted directly).
export async function createEndpoints(url: string, count = 1, groupId: string = randomUUID()): Promise<TestEndpoint[]> {
  const prisma = prismaFor(url);
  try {
    await prisma.group.upsert({ where: { id: groupId }, create: { id: groupId, name: `g-${groupId}` }, update: {} });
    const out: TestEndpoint[] = [];
    for (let i = 0; i < count; i++) {
      const credential = newSecret(AGENT_TOKEN_PREFIX);
      const id = randomUUID();
      await prisma.endpoint.create({
        data: {
          id,
          groupId,
          machineId: `m-${id}`,
          hostname: `host-${i}`,
          platform: 'linux',
          agentVersion: '0.1.0',
          credentialHash: hashSecret(credential),
        },
      });
      out.push({ id, groupId, credential });
    }
    return out;
  } finally {
    await prisma.$disconnect();
  }
}

// Creates an auditor API token on a running test API.
export async function auditorToken(api: TestApi): Promise<string> {
  const created = await api.app
    .get(TokensService)
    .create({ name: 'auditor', role: 'auditor' }, { actorId: null, actorName: 'test', role: 'admin' });
  return created.token;
}

// Stores run records of an endpoint as the worker's ingest does (rows, chain, hourly counts), without an agent.
export async function ingestRecords(api: TestApi, ep: { id: string; groupId: string }, records: RunRecord[]) {
  await api.app.get(IngestRepository).ingestBatch({
    endpointId: ep.id,
    groupId: ep.groupId,
    receivedAt: new Date().toISOString(),
    droppedTotal: null,
    rows: parseUpload({ kind: 'ndjson', text: records.map((r) => canonicalJson(r)).join('\n') }, records.length),
  });
}

/** Options for one generated run record. */
export interface RecordOptions {
  seq: number;
  prevHash?: string | null;
  startedAt?: Date;
  event?: HookEvent;
  toolName?: string | null;
  hookKey?: string;
  status?: 'ran' | 'skipped' | 'failed' | 'timed_out';
  skipReason?: string | null;
  decision?: string | null;
  managed?: boolean;
  sessionId?: string;
  policyRevision?: string;
  stdout?: string;
  gap?: { dropped: number; fromSeq: number; toSeq: number };
}

// Builds one sequenced run record in hook-core's record shape (validated by its runRecordSchema).
export function runRecord(o: RecordOptions): RunRecord {
  const started = o.startedAt ?? new Date();
  const rec: RunRecord = {
    schemaVersion: 1,
    id: randomUUID(),
    recordedAt: started.toISOString(),
    dispatchId: randomUUID(),
    sessionId: o.sessionId ?? 'session-1',
    turnId: 'turn-1',
    notes: [],
    event: o.event ?? 'PreToolUse',
    matcherInput: o.toolName === undefined ? 'Bash' : o.toolName,
    hook: {
      key: o.hookKey ?? '/etc/zerotwo/requirements.toml:pre_tool_use:0:0',
      hash: `sha256:${'cd'.repeat(32)}`,
      layer: 'managed',
      sourceFile: '/etc/zerotwo/requirements.toml',
      plugin: null,
      matcher: null,
      managed: o.managed ?? true,
      trust: 'managed',
      timeoutSec: 600,
    },
    status: o.status ?? 'ran',
    skipReason: o.skipReason ?? null,
    startedAt: started.toISOString(),
    durationMs: 12,
    exitCode: 0,
    signal: null,
    timedOut: o.status === 'timed_out',
    verdict: 'json',
    error: null,
    decision: o.decision ?? null,
    effect: 'none',
    reason: null,
    stdout: { bytes: 2, truncated: false, sha256: 'a'.repeat(64), excerpt: o.stdout ?? 'ok' },
    stderr: null,
    spillPath: null,
    policy: { revision: o.policyRevision ?? '1', digest: `sha256:${'ab'.repeat(32)}` },
    seq: o.seq,
    prevHash: o.prevHash ?? null,
  };
  if (o.gap) rec.gap = o.gap;
  return rec;
}

// One event an enforced hook allowed and the shadow layer of `releaseId` would have denied: the enforced run (seq)
// and the shadow run (seq + 1) of the same dispatch, as the engine records them (the shadow run has no revision).
export function shadowDeniedEvent(
  seq: number,
  releaseId: string,
  startedAt = new Date(Date.now() - 60_000),
): RunRecord[] {
  const enforced = runRecord({ seq, startedAt, decision: 'allow' });
  const shadow = runRecord({ seq: seq + 1, startedAt, decision: 'deny' });
  return [
    enforced,
    {
      ...shadow,
      dispatchId: enforced.dispatchId,
      effect: 'deny',
      hook: { ...shadow.hook, key: '/etc/zerotwo/shadow/requirements.toml:pre_tool_use:0:0' },
      policy: { revision: null, digest: shadow.policy.digest },
      shadow: { releaseId, version: '2', wouldHave: 'deny', killedAtBudget: false },
    },
  ];
}

// Builds a hash-chained sequence of records as canonical NDJSON lines, exactly as hook-core's spool writes them.
export function chainedLines(
  count: number,
  start = 1,
  opts: Partial<RecordOptions> = {},
  prev: string | null = null,
): { lines: string[]; lastHash: string | null } {
  const lines: string[] = [];
  let prevHash = prev;
  for (let i = 0; i < count; i++) {
    const line = canonicalJson(runRecord({ ...opts, seq: start + i, prevHash }));
    lines.push(line);
    prevHash = sha256Hex(line);
  }
  return { lines, lastHash: prevHash };
}

// Polls `check` until it returns a truthy value or the deadline passes.
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
