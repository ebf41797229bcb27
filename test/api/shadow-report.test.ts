// Issue 27 §2: the shadow report's domain rule — shadow decisions against the enforced ones over the same events.
import { describe, expect, it } from 'vitest';
import {
  buildShadowReport,
  categorize,
  SAMPLES_PER_CATEGORY,
  shadowReportSummary,
  type ReportRun,
} from '../../apps/api/src/releases/shadow-report';

let n = 0;
/** A run of event `dispatchId` on `endpointId`. */
function run(dispatchId: string, extra: Partial<ReportRun> = {}): ReportRun {
  n++;
  return {
    id: `run-${n}`,
    endpointId: 'ep-1',
    dispatchId,
    recordedAt: '2026-12-02T07:00:00.000Z',
    hookKey: 'enforced:pre_tool_use:0:0',
    managed: true,
    effect: 'none',
    shadowReleaseId: null,
    wouldHave: null,
    toolName: 'Bash',
    toolCommand: 'ls',
    ...extra,
  };
}
/** A shadow run of release rel-1 that would have done `wouldHave`. */
const shadow = (dispatchId: string, wouldHave: string, extra: Partial<ReportRun> = {}): ReportRun =>
  run(dispatchId, { shadowReleaseId: 'rel-1', hookKey: 'shadow:pre_tool_use:0:0', wouldHave, ...extra });

describe('shadow report', () => {
  it('counts would-newly-deny only where nothing enforced denied', () => {
    const s = shadow('d1', 'deny');
    expect(categorize(s, [run('d1')], [s])).toEqual(['wouldNewlyDeny']);
    expect(categorize(s, [run('d1', { effect: 'deny' })], [s])).toEqual([]);
  });

  it('counts would-stop-denying when a managed deny has no shadow counterpart, not when an unmanaged hook denies too', () => {
    const s = shadow('d1', 'continue');
    expect(categorize(s, [run('d1', { effect: 'deny' })], [s])).toEqual(['wouldStopDenying']);
    expect(categorize(s, [run('d1', { effect: 'deny' }), run('d1', { effect: 'deny', managed: false })], [s])).toEqual(
      [],
    );
    const d = shadow('d1', 'block');
    expect(categorize(s, [run('d1', { effect: 'deny' })], [s, d])).toEqual([]);
  });

  it('reports counts by hook, endpoint and tool command, with bounded samples naming the records', () => {
    const runs: ReportRun[] = [];
    for (let i = 0; i < 8; i++) {
      runs.push(run(`deny-${i}`, { endpointId: i < 6 ? 'ep-1' : 'ep-2', toolCommand: 'rm -rf /' }));
      runs.push(shadow(`deny-${i}`, 'deny', { endpointId: i < 6 ? 'ep-1' : 'ep-2', toolCommand: 'rm -rf /' }));
    }
    runs.push(run('rw'), shadow('rw', 'rewrite', { hookKey: 'shadow:b' }));
    runs.push(
      run('err'),
      shadow('err', 'error', { hookKey: 'shadow:b' }),
      shadow('err', 'timeout', { hookKey: 'shadow:c' }),
    );
    runs.push(run('quiet'), shadow('quiet', 'continue'));
    runs.push(run('no-shadow', { effect: 'deny' }));
    // Runs of another shadow release are not this report's.
    runs.push(run('other'), shadow('other', 'deny', { shadowReleaseId: 'rel-2' }));
    const r = buildShadowReport('rel-1', runs);
    expect(r.events).toBe(11);
    expect(r.shadowRuns).toBe(12);
    expect(r.totals).toEqual({ wouldNewlyDeny: 8, wouldStopDenying: 0, rewrites: 1, errors: 1, timeouts: 1 });
    expect(r.byEndpoint).toEqual([
      { endpointId: 'ep-1', wouldNewlyDeny: 6, wouldStopDenying: 0, rewrites: 1, errors: 1, timeouts: 1 },
      { endpointId: 'ep-2', wouldNewlyDeny: 2, wouldStopDenying: 0, rewrites: 0, errors: 0, timeouts: 0 },
    ]);
    expect(r.byHook.map((h) => [h.hookKey, h.wouldNewlyDeny, h.rewrites, h.errors, h.timeouts])).toEqual([
      ['shadow:pre_tool_use:0:0', 8, 0, 0, 0],
      ['shadow:b', 0, 1, 1, 0],
      ['shadow:c', 0, 0, 0, 1],
    ]);
    expect(r.byToolCommand[0]).toMatchObject({ toolName: 'Bash', toolCommand: 'rm -rf /', wouldNewlyDeny: 8 });
    const denySamples = r.samples.filter((s) => s.category === 'wouldNewlyDeny');
    expect(denySamples).toHaveLength(SAMPLES_PER_CATEGORY);
    expect(denySamples[0]!.enforcedRunIds).toHaveLength(1);
    expect(shadowReportSummary(r)).toEqual({ events: 11, shadowRuns: 12, ...r.totals });
  });

  it('is empty without shadow runs', () => {
    const r = buildShadowReport('rel-1', [run('a', { effect: 'deny' })]);
    expect(r.events).toBe(0);
    expect(r.samples).toEqual([]);
    expect(r.byHook).toEqual([]);
  });
});
