// What stored records claim (pure): per-endpoint counts per release revision and hour, unserved claims.
import { describe, expect, it } from 'vitest';
import { endpointCounts, releaseRevisionOf, unservedClaims } from '../../src/ingest/evidence';
import type { IngestRow } from '../../src/ingest/ingest.parse';

const row = (seq: number, policyRevision: string | null, status = 'failed', startedAt = '2026-12-02T01:10:00.000Z') =>
  ({ c: { seq, policyRevision, status, startedAt }, gap: null }) as unknown as IngestRow;

describe('releaseRevisionOf', () => {
  it('reads release numbers only', () => {
    expect(releaseRevisionOf('2')).toBe(2);
    expect(releaseRevisionOf('123456789')).toBe(123456789);
    for (const s of [null, '', '0', '02', '-1', '2.0', ' 2', 'abc', '1234567890'])
      expect(releaseRevisionOf(s)).toBeNull();
  });
});

describe('endpointCounts', () => {
  it('counts runs that ran and those that failed or timed out, per revision and UTC hour; skipped and non-release claims are left out', () => {
    const counts = endpointCounts([
      row(1, '2', 'failed'),
      row(2, '2', 'timed_out'),
      row(3, '2', 'ran'),
      row(4, '2', 'skipped'),
      row(5, '2', 'ran', '2026-12-02T02:00:00.000Z'),
      row(6, '1', 'failed'),
      row(7, null, 'failed'),
      row(8, 'x', 'failed'),
      row(9, '3', 'skipped'),
    ]);
    expect(counts).toEqual([
      { revision: 2, hour: '2026-12-02T01:00:00.000Z', ran: 3, failed: 2 },
      { revision: 2, hour: '2026-12-02T02:00:00.000Z', ran: 1, failed: 0 },
      { revision: 1, hour: '2026-12-02T01:00:00.000Z', ran: 1, failed: 1 },
    ]);
  });
});

describe('unservedClaims', () => {
  it('groups the claims of revisions not served, with their sequence range, largest first', () => {
    const rows = [row(1, '2'), row(2, '1'), row(3, '2'), row(4, '3'), row(5, null), row(9, '2', 'skipped')];
    expect(unservedClaims(rows, new Set([1]))).toEqual([
      { revision: '2', count: 3, fromSeq: 1, toSeq: 9, revisions: 1 },
      { revision: '3', count: 1, fromSeq: 4, toSeq: 4, revisions: 1 },
    ]);
    expect(unservedClaims(rows, new Set([1, 2, 3]))).toEqual([]);
  });

  it('merges the claims past the per-batch cap into one', () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i + 1, String(i + 10)));
    const claims = unservedClaims(rows, new Set());
    expect(claims).toHaveLength(20);
    expect(claims[19]).toEqual({ revision: null, count: 11, fromSeq: 20, toSeq: 30, revisions: 11 });
  });
});
