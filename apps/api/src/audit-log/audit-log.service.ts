// Admin audit log: filtered pages, streamed CSV/NDJSON exports, and verification of the hash chain.
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { AuditLogEntry } from '@prisma/client';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { primed } from '../common/streams';
import { decodeCursor, type Page, toPage } from '../common/pagination';
import { SigningService } from '../signing/signing.service';
import {
  type AuditCheckpoint,
  type AuditEntryView,
  type AuditFilter,
  CHECKPOINT_KIND,
  type VerifyResult,
} from './audit-log.dto';
import { auditEntryHash, GENESIS_HASH } from './audit-log.writer';
import { AuditLogRepository, type ChainPoint } from './audit-log.repository';

const CHUNK = 1000;
const seqKey = z.object({ s: z.string().regex(/^[1-9]\d{0,17}$/) }).strict();

const CSV_COLUMNS = [
  'seq',
  'id',
  'at',
  'actorId',
  'actorName',
  'role',
  'action',
  'targetType',
  'targetId',
  'beforeDigest',
  'afterDigest',
  'details',
  'requestId',
  'clientIp',
  'prevHash',
  'hash',
  'person',
] as const satisfies ReadonlyArray<keyof AuditEntryView>;

// Public view of an entry (seq as a decimal string: it is a bigint). Its action, target type and details are as the
// writers stored them (appendAudit takes each action's details type from the same table the schema documents).
export function toAuditView(e: AuditLogEntry): AuditEntryView {
  return {
    seq: e.seq.toString(),
    id: e.id,
    at: e.at.toISOString(),
    actorId: e.actorId,
    actorName: e.actorName,
    role: e.role,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    beforeDigest: e.beforeDigest,
    afterDigest: e.afterDigest,
    details: e.details,
    requestId: e.requestId,
    clientIp: e.clientIp,
    ...(e.actorPerson ? { person: e.actorPerson as NonNullable<AuditEntryView['person']> } : {}),
    prevHash: e.prevHash,
    hash: e.hash,
  } as AuditEntryView;
}

/** A point the chain must still contain: the server's head row or an auditor's checkpoint. */
interface Anchor extends ChainPoint {
  what: string;
}

// One CSV field, quoted when needed (RFC 4180); text a spreadsheet would run as a formula (leading =, +, -, @, tab
// or CR, e.g. a client-chosen request id) gets a leading ' (OWASP CSV injection advice). No field is a number.
function csvField(v: unknown): string {
  const raw = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  const s = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

@Injectable()
export class AuditLogService {
  constructor(
    private readonly entries: AuditLogRepository,
    private readonly signing: SigningService,
  ) {}

  // One page of entries, newest first.
  async list(query: AuditFilter & { limit: number; cursor?: string }): Promise<Page<AuditEntryView>> {
    const after = decodeCursor('audit-log', query.cursor, seqKey);
    const rows = await this.entries.list(query, query.limit + 1, after ? BigInt(after.s) : undefined);
    return toPage('audit-log', rows, query.limit, toAuditView, (e) => ({ s: e.seq.toString() }));
  }

  // Every matching entry, oldest first, as a stream of NDJSON lines or CSV rows (read in chunks). Resolves once the
  // first chunk is read, so a failing query answers an error instead of a 200 with a cut body.
  export(filter: AuditFilter, format: 'ndjson' | 'csv'): Promise<Readable> {
    const entries = this.entries;
    async function* lines(): AsyncGenerator<string> {
      // The CSV header goes out with the first chunk (after the first query succeeded).
      let prefix = format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : '';
      let after = 0n;
      for (;;) {
        const rows = await entries.chunkAfter(filter, after, CHUNK);
        let out = '';
        for (const row of rows) {
          const view = toAuditView(row);
          out +=
            format === 'csv'
              ? `${CSV_COLUMNS.map((c) => csvField(view[c])).join(',')}\r\n`
              : `${JSON.stringify(view)}\n`;
        }
        if (prefix || out) yield prefix + out;
        prefix = '';
        if (rows.length < CHUNK) return;
        after = rows[rows.length - 1]!.seq;
      }
    }
    return primed(Readable.from(lines()));
  }

  // Walks the whole chain in order, recomputing each hash and link, and checks that it still contains the recorded
  // head and the caller's checkpoint (so removing the newest entries shows); reports the first problem, or signs
  // a checkpoint of the verified end.
  async verify(checkpoint?: ChainPoint): Promise<VerifyResult> {
    // Read before walking: appends meanwhile only extend the chain past it.
    const { head } = await this.entries.ends();
    const anchors: Anchor[] = [];
    if (head) anchors.push({ ...head, what: 'the recorded head (audit_log_head)' });
    if (checkpoint) anchors.push({ ...checkpoint, what: 'your checkpoint' });
    let checked = 0;
    let prevSeq = 0n;
    let prevHash = GENESIS_HASH;
    const rewritten = (a: Anchor): VerifyResult => ({
      ok: false,
      checked,
      firstBrokenSeq: a.seq.toString(),
      problem: 'rewritten',
      reason: `entry ${a.seq} does not have the hash ${a.what} names (the chain was rewritten from there)`,
    });
    for (const a of anchors) if (a.seq === 0n && a.hash !== GENESIS_HASH) return rewritten(a);
    for (;;) {
      const rows = await this.entries.chunkAfter({}, prevSeq, CHUNK);
      for (const e of rows) {
        const broken = (problem: VerifyResult['problem'], reason: string): VerifyResult => ({
          ok: false,
          checked,
          firstBrokenSeq: e.seq.toString(),
          problem,
          reason,
        });
        if (e.seq !== prevSeq + 1n) {
          return broken(
            'missing_entries',
            prevSeq + 1n === e.seq - 1n
              ? `entry ${prevSeq + 1n} is missing (removed from the chain)`
              : `entries ${prevSeq + 1n}..${e.seq - 1n} are missing (removed from the chain)`,
          );
        }
        if (e.prevHash !== prevHash)
          return broken('broken_link', `prevHash does not match the hash of entry ${prevSeq}`);
        // The entry's content is exactly its public view without the hash.
        const { hash: _hash, ...content } = toAuditView(e);
        const expected = auditEntryHash(content);
        if (expected !== e.hash) return broken('altered', 'content does not match its hash (the entry was altered)');
        const moved = anchors.find((a) => a.seq === e.seq && a.hash !== e.hash);
        if (moved) return rewritten(moved);
        checked++;
        prevSeq = e.seq;
        prevHash = e.hash;
      }
      if (rows.length < CHUNK) break;
    }
    for (const a of anchors) {
      if (a.seq <= prevSeq) continue;
      return {
        ok: false,
        checked,
        firstBrokenSeq: (prevSeq + 1n).toString(),
        problem: 'truncated',
        reason:
          `the chain ends at entry ${prevSeq} but ${a.what} names entry ${a.seq}: ` +
          `${prevSeq + 1n === a.seq ? `entry ${a.seq} was` : `entries ${prevSeq + 1n}..${a.seq} were`} removed`,
      };
    }
    if (!head) {
      return {
        ok: false,
        checked,
        problem: 'head_missing',
        reason: 'the audit_log_head row is missing, so removed newest entries could go unnoticed',
      };
    }
    return { ok: true, checked, checkpoint: await this.checkpoint({ seq: prevSeq, hash: prevHash }) };
  }

  // A signed checkpoint of the chain's current end, provided it is where audit_log_head says (409 otherwise).
  async head(): Promise<AuditCheckpoint> {
    const { head, newest } = await this.entries.ends();
    const end = newest ?? { seq: 0n, hash: GENESIS_HASH };
    if (!head) {
      throw new ApiError('conflict', 'The audit_log_head row is missing; run GET /v1/audit-log/verify');
    }
    if (head.seq !== end.seq || head.hash !== end.hash) {
      throw new ApiError(
        'conflict',
        `The audit log ends at entry ${end.seq} but audit_log_head records entry ${head.seq}; ` +
          'run GET /v1/audit-log/verify',
      );
    }
    return this.checkpoint(end);
  }

  // Signs {kind, seq, hash, at} (canonical JSON) with the bundle-signing key.
  private async checkpoint(end: ChainPoint): Promise<AuditCheckpoint> {
    const body: Omit<AuditCheckpoint, 'keyId' | 'signature'> = {
      kind: CHECKPOINT_KIND,
      seq: end.seq.toString(),
      hash: end.hash,
      at: new Date().toISOString(),
    };
    return { ...body, ...(await this.signing.signCanonical(body)) };
  }
}
