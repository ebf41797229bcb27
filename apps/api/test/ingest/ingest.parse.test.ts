// Upload parsing: per-record validation at the door, escaped storage, located errors.
import { canonicalJson, sha256Hex } from '@hookwarden/hook-core';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { ESCAPE_MARK } from '../../src/database/storable-text';
import { parseUpload } from '../../src/ingest/ingest.parse';
import { runRecord } from '../../../../test/support/audit-factories';

const ndjson = (recs: unknown[]): { kind: 'ndjson'; text: string } => ({
  kind: 'ndjson',
  text: recs.map((r) => canonicalJson(r)).join('\n'),
});

describe('parseUpload', () => {
  it('stores NUL and lone surrogates escaped, hashing the line as received', () => {
    const rec = { ...runRecord({ seq: 1 }), sessionId: 's\u0000x', turnId: '\ud800', reason: 'r\u0000' };
    const [row] = parseUpload(ndjson([rec]), 10);
    expect(row!.c.escaped).toBe(true);
    expect(row!.c.sessionId).toBe(`${ESCAPE_MARK}s%0000x`);
    expect(row!.c.record.includes('\\u0000')).toBe(false);
    expect(row!.c.recordHash).toBe(sha256Hex(canonicalJson(rec)));
  });

  it('keeps ordinary records as received', () => {
    const rec = runRecord({ seq: 1 });
    const [row] = parseUpload(ndjson([rec]), 10);
    expect(row!.c.escaped).toBe(false);
    expect(row!.c.record).toBe(canonicalJson(rec));
  });

  it('bounds oversize indexed columns and out-of-int4 numbers, keeping the record whole', () => {
    const rec = { ...runRecord({ seq: 1 }), sessionId: 'x'.repeat(100_000), durationMs: 1e300, exitCode: 2 ** 40 };
    const [row] = parseUpload(ndjson([rec]), 10);
    expect(row!.c.sessionId!.length).toBe(512);
    expect(row!.c.durationMs).toBeNull();
    expect(row!.c.exitCode).toBeNull();
    expect(JSON.parse(row!.c.record).sessionId.length).toBe(100_000);
  });

  it('rejects times PostgreSQL cannot store sensibly, naming the line and field', () => {
    const ok = runRecord({ seq: 1 });
    const bad = { ...runRecord({ seq: 2 }), startedAt: '0000-01-01T00:00:00.000Z' };
    try {
      parseUpload(ndjson([ok, bad]), 10);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).message).toMatch(/^line 2: \$\.startedAt: time out of range/);
      expect((err as ApiError).details).toEqual([expect.objectContaining({ line: 2, path: '$.startedAt' })]);
    }
  });
});
