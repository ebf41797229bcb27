// Follows a staged rollout: per-ring progress until it completes, pauses or is aborted (redrawn on a terminal,
// one line per change otherwise).
import type { ApiClient } from '../client/api-client';
import type { RolloutView } from '../client/types';
import { CliError } from '../cli/errors';
import { cellText } from '../output/table';

export type WatchEnd = 'completed' | 'paused' | 'aborted' | 'superseded';

export interface WatchOptions {
  intervalMs?: number;
  /** Give up after this long (ms); undefined: wait as long as it takes. */
  timeoutMs?: number;
  /** Where progress goes (default stderr when json, else stdout). */
  write: (text: string) => void;
  tty: boolean;
  signal?: AbortSignal;
}

const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);

// The progress display of one rollout snapshot.
export function renderRollout(v: RolloutView): string {
  const r = v.release;
  const lines = [
    `release ${r.id}  revision ${r.revision}  policy version ${r.policyVersion}  ${r.strategy}  status ${r.status}` +
      (r.pausedReason ? ` (${cellText(r.pausedReason)})` : ''),
  ];
  for (const ring of v.rings) {
    const mine = ring.versions.find((x) => x.releaseId === r.id);
    const assigned = ring.versions.reduce((n, x) => n + x.assigned, 0);
    const applied = mine?.applied ?? 0;
    const failed = mine?.failed ?? 0;
    const width = 20;
    const filled = assigned > 0 ? Math.round((applied / assigned) * width) : 0;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    lines.push(
      `  ring ${ring.ring + 1} ${String(ring.percent).padStart(3)}% ${ring.active ? 'active ' : 'waiting'} ${bar} ` +
        `${applied}/${assigned} applied, ${failed} failed, ${mine?.stale ?? 0} pending`,
    );
  }
  lines.push(
    `  gate: apply failures ${pct(v.gate.applyFailureRate)} (max ${pct(r.maxApplyFailureRate)}), hook failures ` +
      `${pct(v.gate.hookFailureRate)}${r.maxHookFailureRate !== null ? ` (max ${pct(r.maxHookFailureRate)})` : ''}, ` +
      `${v.gate.endpointsOnRevision} endpoint(s) and ${v.gate.hookRunsOnRevision} hook run(s) on the revision`,
  );
  if (r.maxHookFailureRate !== null) {
    // The hook rule's inputs: endpoints that applied the revision, those reporting, the worst ones.
    const worst = v.gate.hookEndpoints
      .filter((e) => e.reporting)
      .slice(0, 3)
      .map((e) => `${e.hostname} ${pct(e.failureRate)} (${e.failed}/${e.ran})`);
    lines.push(
      `  hook gate: mean of ${v.gate.reportingEndpoints} reporting endpoint(s) (need ${r.minReportingEndpoints}, ` +
        `${r.minHookRuns}+ runs each) of ${v.gate.appliedEndpoints} that applied it` +
        `${worst.length ? `; worst: ${worst.join(', ')}` : ''}` +
        `${v.gate.hookRunsNotCounted ? `; ${v.gate.hookRunsNotCounted} run(s) not counted (never served)` : ''}`,
    );
  }
  return lines.join('\n') + '\n';
}

const TERMINAL: Record<string, WatchEnd> = {
  completed: 'completed',
  paused: 'paused',
  aborted: 'aborted',
  superseded: 'superseded',
};

// Polls GET /v1/releases/:id/rollout until the release is completed, paused, aborted or superseded.
export async function watchRollout(
  client: ApiClient,
  releaseId: string,
  o: WatchOptions,
): Promise<{ end: WatchEnd; last: RolloutView }> {
  const interval = o.intervalMs ?? 2000;
  const deadline = o.timeoutMs !== undefined ? Date.now() + o.timeoutMs : Infinity;
  let previous = '';
  let drawnLines = 0;
  let failures = 0;
  for (;;) {
    let view: RolloutView;
    try {
      view = await client.json<RolloutView>('GET', `/v1/releases/${releaseId}/rollout`);
      failures = 0;
    } catch (err) {
      // 4xx other than 429 will not get better; network trouble and 5xx are retried with backoff (bounded).
      const status = (err as { status?: number }).status;
      if (status !== undefined && status < 500 && status !== 429) throw err;
      if (++failures > 10) throw err;
      await sleep(Math.min(30_000, interval * 2 ** failures), o.signal);
      continue;
    }
    const text = renderRollout(view);
    if (text !== previous) {
      if (o.tty && drawnLines > 0) o.write(`\x1b[${drawnLines}A\x1b[J`);
      o.write(text);
      drawnLines = text.split('\n').length - 1;
      previous = text;
    }
    const end = TERMINAL[view.release.status];
    if (end) return { end, last: view };
    if (Date.now() > deadline)
      throw new CliError(`release ${releaseId} is still ${view.release.status} after the --timeout`);
    await sleep(interval, o.signal);
  }
}

// Waits `ms` (cut short by the signal, which then throws).
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CliError('interrupted'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new CliError('interrupted'));
      },
      { once: true },
    );
  });
}

// The exit code of a watch: 0 completed, 3 paused, 1 aborted or superseded.
export function watchExitCode(end: WatchEnd): number {
  return end === 'completed' ? 0 : end === 'paused' ? 3 : 1;
}
