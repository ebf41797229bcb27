// Spool sink: sequence numbers, hash chain across concurrent writers, rotation, size cap with counted gaps, stale locks.
import { appendFileSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dispatch,
  listClosedSegments,
  readSpoolState,
  runRecordSchema,
  sha256Hex,
  SpoolSink,
  type CaptureSettings,
  type RunRecordDraft,
} from '../support/core';
import { writeSpoolState } from '../../src/record/spool';
import { bashInput, discovery, emit, hook, tmp } from '../engine/support';

/** Records produced by one real dispatch of `n` hooks. */
async function drafts(n = 1): Promise<RunRecordDraft[]> {
  const d = discovery(Array.from({ length: n }, (_, i) => hook('PreToolUse', `${emit(0)} # ${i}`)));
  return (await dispatch('PreToolUse', bashInput(), { discovery: d })).runs;
}

/** Every line of every segment (closed first, then open), in file order. */
function readSpool(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.startsWith('seg-'))
    .sort()
    .flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n').filter(Boolean));
}

/** Assert seq and chain continuity of spooled lines; returns the parsed records. */
function verifyChain(lines: string[]) {
  const recs = lines.map((l) => runRecordSchema.parse(JSON.parse(l)));
  recs.sort((a, b) => a.seq - b.seq);
  const byLine = new Map(lines.map((l) => [JSON.parse(l).seq as number, l]));
  let prev: string | null = null;
  recs.forEach((r, i) => {
    if (!r.gap) expect(r.seq).toBe(i === 0 ? 1 : recs[i - 1]!.seq + 1);
    expect(r.prevHash).toBe(prev);
    prev = sha256Hex(byLine.get(r.seq)!);
  });
  return recs;
}

describe('SpoolSink', () => {
  it('appends NDJSON with seq, prevHash chain and the policy stamp; records validate with runRecordSchema', async () => {
    const dir = tmp('hc-spool-');
    const sink = new SpoolSink(dir, { policy: { revision: 'r7', digest: 'sha256:abc' } });
    for (let i = 0; i < 3; i++) await sink.write(await drafts(2));
    const recs = verifyChain(readSpool(dir));
    expect(recs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(recs.every((r) => r.policy.revision === 'r7')).toBe(true);
    expect(new Set(recs.map((r) => r.id)).size).toBe(6);
    const state = await readSpoolState(dir);
    expect(state).toMatchObject({ lastSeq: 6, droppedTotal: 0 });
    expect(readdirSync(dir).filter((n) => n.endsWith('.open'))).toEqual(['seg-000000000001.ndjson.open']);
  });

  it('dispatch writes to the spool before returning and the returned runs carry seq', async () => {
    const dir = tmp('hc-spool-');
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0))]),
      spoolDir: dir,
    });
    expect((r.runs[0] as { seq?: number }).seq).toBe(1);
    expect(readSpool(dir)).toHaveLength(1);
  });

  it('the chain stays correct with many concurrent writers (separate sinks, one lock file)', async () => {
    const dir = tmp('hc-spool-');
    const batches = await Promise.all(Array.from({ length: 20 }, () => drafts(3)));
    await Promise.all(batches.map((b) => new SpoolSink(dir).write(b)));
    const recs = verifyChain(readSpool(dir));
    expect(recs.map((r) => r.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('rotates by size and age into closed segments named by their seq range; seal() closes the open one', async () => {
    const dir = tmp('hc-spool-');
    let now = 1_000_000;
    const sink = new SpoolSink(dir, { maxSegmentBytes: 1, maxSegmentAgeMs: 60_000, now: () => now });
    await sink.write(await drafts(2));
    await sink.write(await drafts(1));
    expect((await listClosedSegments(dir)).map((s) => s.name)).toEqual(['seg-000000000001-000000000002.ndjson']);
    const aged = new SpoolSink(dir, { maxSegmentAgeMs: 1000, now: () => now });
    now += 5000;
    await aged.write(await drafts(1));
    expect((await listClosedSegments(dir)).map((s) => [s.firstSeq, s.lastSeq])).toEqual([
      [1, 2],
      [3, 3],
    ]);
    expect(await aged.seal()).toBe('seg-000000000004-000000000004.ndjson');
    verifyChain(readSpool(dir));
  });

  it('at the size cap records are dropped, counted, and the next written record carries the gap', async () => {
    const dir = tmp('hc-spool-');
    const sink = new SpoolSink(dir, { maxSpoolBytes: 6000, maxSegmentBytes: 1 });
    for (let i = 0; i < 6; i++) await sink.write(await drafts(1));
    const state = await readSpoolState(dir);
    expect(state.droppedTotal).toBeGreaterThan(0);
    expect(state.pendingGap).toMatchObject({ dropped: state.droppedTotal, toSeq: 6 });
    // The agent uploads and deletes closed segments: room again.
    for (const s of await listClosedSegments(dir)) rmSync(join(dir, s.name));
    await sink.write(await drafts(1));
    const lines = readSpool(dir);
    const last = runRecordSchema.parse(JSON.parse(lines[lines.length - 1]!));
    expect(last.seq).toBe(7);
    expect(last.gap).toEqual(state.pendingGap);
    expect((await readSpoolState(dir)).pendingGap).toBeNull();
  });

  it('breaks a stale lock left by a crashed writer', async () => {
    const dir = tmp('hc-spool-');
    writeFileSync(join(dir, 'lock'), '99999 crashed\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'lock'), old, old);
    await new SpoolSink(dir, { staleLockMs: 1000 }).write(await drafts(1));
    expect(readSpool(dir)).toHaveLength(1);
  });
});

describe('capture policy', () => {
  const noisy = emit(
    0,
    'token=abc123secret AKIAABCDEFGHIJKLMNOP ghp_abcdefghijklmnopqrstuvwxyz0123 Authorization: Bearer eyJhbGciOi.xyz.abc MYCORP-1234',
    'password=hunter2',
  );
  it('excerpts mode: bounded and redacted (defaults + policy patterns); digests of the raw output', async () => {
    const d = discovery([hook('PreToolUse', noisy)]);
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: d,
      capture: { capture: 'excerpts', maxExcerptBytes: 4096, redactPatterns: ['MYCORP-\\d+'] },
    });
    const out = r.runs[0]!.stdout!;
    expect(out.excerpt).not.toMatch(/abc123secret|AKIAABCDEFGHIJKLMNOP|ghp_abc|eyJhbGciOi|MYCORP-1234/);
    expect(out.excerpt).toContain('[REDACTED]');
    expect(r.runs[0]!.stderr!.excerpt).toBe('[REDACTED]');
    expect(out.sha256).toMatch(/^[0-9a-f]{64}$/);
    const small = await dispatch('PreToolUse', bashInput(), {
      discovery: d,
      capture: { capture: 'excerpts', maxExcerptBytes: 10 },
    });
    expect(small.runs[0]!.stdout!.excerpt).toMatch(/^.{0,10}…\[\d+ bytes omitted\]$/);
  });
  it('useDefaultRedact false: only the policy patterns redact what reaches the spool; by default both do', async () => {
    const d = discovery([hook('PreToolUse', noisy)]);
    // The spooled NDJSON of one dispatch under a capture policy.
    const spooled = async (capture: Partial<CaptureSettings>): Promise<string> => {
      const dir = tmp('hc-spool-');
      await dispatch('PreToolUse', bashInput(), { discovery: d, capture, spoolDir: dir });
      return readSpool(dir).join('\n');
    };
    const custom = await spooled({ capture: 'excerpts', redactPatterns: ['MYCORP-\\d+'], useDefaultRedact: false });
    expect(custom).toContain('[REDACTED]');
    expect(custom).not.toContain('MYCORP-1234');
    expect(custom).toContain('AKIAABCDEFGHIJKLMNOP');
    expect(custom).toContain('password=hunter2');
    for (const capture of [
      { capture: 'excerpts', redactPatterns: ['MYCORP-\\d+'] },
      { capture: 'excerpts', redactPatterns: ['MYCORP-\\d+'], useDefaultRedact: true },
    ] satisfies Partial<CaptureSettings>[]) {
      const both = await spooled(capture);
      expect(both).toContain('[REDACTED]');
      expect(both).not.toMatch(/MYCORP-1234|AKIAABCDEFGHIJKLMNOP|abc123secret|hunter2/);
    }
  });
  it('digests mode keeps no text; none mode keeps nothing', async () => {
    const d = discovery([hook('PreToolUse', noisy)]);
    const dg = await dispatch('PreToolUse', bashInput(), { discovery: d, capture: { capture: 'digests' } });
    expect(dg.runs[0]!.stdout).toEqual({ bytes: expect.any(Number), truncated: false, sha256: expect.any(String) });
    const none = await dispatch('PreToolUse', bashInput(), { discovery: d, capture: { capture: 'none' } });
    expect(none.runs[0]!.stdout).toBeNull();
    expect(none.runs[0]!.reason).toBeNull();
  });
});

describe('SpoolSink crash recovery', () => {
  it('a writer that died after appending (state not saved, partial line) does not break the chain', async () => {
    const dir = tmp('hc-spool-');
    const sink = new SpoolSink(dir);
    await sink.write(await drafts(1));
    const before = await readSpoolState(dir);
    await sink.write(await drafts(2));
    // Simulate the crash: the state file is the one from before the second write, and half a line follows.
    await writeSpoolState(dir, before);
    appendFileSync(join(dir, before.open!.name), '{"schemaVersion":1,"id":"trunc');
    await sink.write(await drafts(1));
    const recs = verifyChain(readSpool(dir));
    expect(recs.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });
});
