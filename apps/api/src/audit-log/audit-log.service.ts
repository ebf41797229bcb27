// Admin audit log: filtered pages, streamed CSV/NDJSON exports, and verification of the hash chain.
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { AuditLogEntry } from '@prisma/client';
import { z } from 'zod';
import { decodeCursor, type Page, toPage } from '../common/pagination';
import type { AuditEntryView, AuditFilter, VerifyResult } from './audit-log.dto';
import { auditEntryHash, GENESIS_HASH } from './audit-log.writer';
import { AuditLogRepository } from './audit-log.repository';

const CHUNK = 1000;
const seqKey = z.object({ s: z.string().regex(/^\d{1,19}$/) });

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
] as const satisfies ReadonlyArray<keyof AuditEntryView>;

// Public view of an entry (seq as a decimal string: it is a bigint).
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
    prevHash: e.prevHash,
    hash: e.hash,
  };
}

// One CSV field, quoted when needed (RFC 4180).
function csvField(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

@Injectable()
export class AuditLogService {
  constructor(private readonly entries: AuditLogRepository) {}

  // One page of entries, newest first.
  async list(query: AuditFilter & { limit: number; cursor?: string }): Promise<Page<AuditEntryView>> {
    const after = decodeCursor(query.cursor, seqKey);
    const rows = await this.entries.list(query, query.limit + 1, after ? BigInt(after.s) : undefined);
    return toPage(rows, query.limit, toAuditView, (e) => ({ s: e.seq.toString() }));
  }

  // Every matching entry, oldest first, as a stream of NDJSON lines or CSV rows (read in chunks).
  export(filter: AuditFilter, format: 'ndjson' | 'csv'): Readable {
    const entries = this.entries;
    async function* lines(): AsyncGenerator<string> {
      if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`;
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
        if (out) yield out;
        if (rows.length < CHUNK) return;
        after = rows[rows.length - 1]!.seq;
      }
    }
    return Readable.from(lines());
  }

  // Walks the whole chain in order, recomputing each hash and link; reports the first broken entry.
  async verify(): Promise<VerifyResult> {
    let checked = 0;
    let prevSeq = 0n;
    let prevHash = GENESIS_HASH;
    for (;;) {
      const rows = await this.entries.chunkAfter({}, prevSeq, CHUNK);
      for (const e of rows) {
        const broken = (reason: string): VerifyResult => ({
          ok: false,
          checked,
          firstBrokenSeq: e.seq.toString(),
          reason,
        });
        if (e.seq !== prevSeq + 1n) {
          return broken(
            prevSeq + 1n === e.seq - 1n
              ? `entry ${prevSeq + 1n} is missing (removed from the chain)`
              : `entries ${prevSeq + 1n}..${e.seq - 1n} are missing (removed from the chain)`,
          );
        }
        if (e.prevHash !== prevHash) return broken(`prevHash does not match the hash of entry ${prevSeq}`);
        // The entry's content is exactly its public view without the hash.
        const { hash: _hash, ...content } = toAuditView(e);
        const expected = auditEntryHash(content);
        if (expected !== e.hash) return broken('content does not match its hash (the entry was altered)');
        checked++;
        prevSeq = e.seq;
        prevHash = e.hash;
      }
      if (rows.length < CHUNK) return { ok: true, checked };
    }
  }
}
