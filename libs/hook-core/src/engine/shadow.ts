// Shadow layer: a second managed layer whose hooks run in observe mode beside the enforced ones. Their outcome is
// recorded as "would have …" (records marked `shadow` with the release id) and never applied. Budget: they start with
// the enforced hooks and are killed `graceMs` after the enforced hooks are done (never later than their own timeout),
// so a slow, hanging or crashing shadow hook costs an event at most that grace.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { discoverHooks } from '../config/discover';
import type { DiscoveryFs } from '../config/env';
import { managedLayerProblem } from '../config/layer-gate';
import { eventSpec } from '../event-spec';
import { aggregate, type RunEffect } from '../outcome/aggregate';
import { parseRun } from '../outcome/parse';
import type { HookOutcome, ParsedRun } from '../outcome/types';
import type { RunRecordDraft } from '../record/schema';
import { nodeSpawn, runCommand, type RunnerOptions, type RunResult, type SpawnFn } from '../run/runner';
import { pluginEnv } from '../run/shell';
import type { Discovery, HookEvent } from '../types';
import { considerHooks, type Consideration } from './eligibility';
import { SHADOW_DIR_NAME, SHADOW_RELEASE_FILE } from '../config/shadow-dir';
import { DEFAULT_SHADOW_GRACE_MS, shadowBudget } from './shadow-budget';

export { SHADOW_DIR_NAME, SHADOW_RELEASE_FILE } from '../config/shadow-dir';
export { DEFAULT_SHADOW_GRACE_MS, MAX_SHADOW_GRACE_MS } from './shadow-budget';
/** Largest shadow-release.json read. */
const MAX_RELEASE_FILE_BYTES = 64 * 1024;

/** Where and how shadow hooks run. */
export interface ShadowOptions {
  /** The shadow requirements.toml (default `<dir of the enforced requirements.toml>/shadow/requirements.toml`). */
  requirementsPath?: string;
  /** Release id stamped on shadow records (default: `releaseId` of shadow-release.json beside it). */
  releaseId?: string | null;
  /** Grace after the enforced hooks are done (default: `budgetMs` of shadow-release.json, else
   *  DEFAULT_SHADOW_GRACE_MS). */
  graceMs?: number;
}

/** The shadow requirements.toml that goes with an enforced requirements.toml. */
export function shadowRequirementsPath(enforcedRequirementsPath: string): string {
  return path.join(path.dirname(enforcedRequirementsPath), SHADOW_DIR_NAME, 'requirements.toml');
}

/** What shadow-release.json says of the shadow release (nulls where absent, unreadable or out of bounds). */
export interface ShadowRelease {
  releaseId: string | null;
  version: string | null;
  /** The release's grace for its hooks (0..MAX_SHADOW_GRACE_MS). */
  budgetMs: number | null;
}

/** The shadow release's id, version and budget from shadow-release.json (nulls when absent or unreadable). */
export function readShadowRelease(requirementsPath: string): ShadowRelease {
  const file = path.join(path.dirname(requirementsPath), SHADOW_RELEASE_FILE);
  const none = { releaseId: null, version: null, budgetMs: null };
  try {
    if (statSync(file).size > MAX_RELEASE_FILE_BYTES) return none;
    const v = JSON.parse(readFileSync(file, 'utf8')) as { releaseId?: unknown; version?: unknown; budgetMs?: unknown };
    return {
      releaseId: typeof v.releaseId === 'string' ? v.releaseId : null,
      version: typeof v.version === 'string' ? v.version : null,
      budgetMs: shadowBudget(v.budgetMs),
    };
  } catch {
    return none;
  }
}

/** A file system that shows discovery the shadow requirements.toml and nothing else (no other layer). */
function onlyFile(file: string, text: string): DiscoveryFs {
  return {
    readFile: (p) => (p === file ? text : undefined),
    exists: (p) => p === file,
  };
}

/**
 * The shadow layer's hooks, or why there are none: no file (undefined), or a problem (the layer's gate, a
 * requirements.toml that fails closed) — then no shadow hook runs and the problem is a warning, nothing else.
 */
export function discoverShadow(requirementsPath: string): { discovery: Discovery } | { problem: string } | undefined {
  let text: string;
  try {
    if (statSync(requirementsPath).size > 4 * 1024 * 1024) return { problem: `${requirementsPath} is too large` };
    text = readFileSync(requirementsPath, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: `cannot read ${requirementsPath}: ${(e as Error).message}` };
  }
  const gate = managedLayerProblem(requirementsPath, text);
  if (gate !== null) return { problem: gate };
  const none = path.join(path.dirname(requirementsPath), '.none');
  const discovery = discoverHooks({
    requirementsPath,
    systemDir: none,
    home: none,
    homeDir: none,
    projectDir: none,
    fs: onlyFile(requirementsPath, text),
  });
  const failed = discovery.skipped.find((s) => s.layer === 'managed');
  if (failed) return { problem: failed.reason };
  return { discovery };
}

/** What one event's shadow run gives back. */
export interface ShadowResult {
  releaseId: string | null;
  version: string | null;
  /** What the shadow hooks, alone, would have decided (never applied). */
  outcome: HookOutcome;
  /**
   * One record per shadow hook that ran (status `timed_out` with `shadow.killedAtBudget` when killed at the budget);
   * their `policy` is the shadow layer's (revision null), so gates counting the enforced revision never count them.
   */
  runs: RunRecordDraft[];
}

/** A running shadow layer for one event. */
export interface ShadowRun {
  /** Called when the enforced hooks are done: the shadow hooks still running are killed `graceMs` later. */
  enforcedDone(): void;
  /** Waits for every shadow hook (at most the budget) and builds the records with `build`. */
  finish(build: ShadowRecordBuilder): Promise<ShadowResult>;
}

/** Builds the record of one shadow hook (dispatch's record builder, so shadow records have the same shape). */
export type ShadowRecordBuilder = (
  c: Consideration,
  r: RunResult,
  p: ParsedRun,
  eff: { decision?: string; effect: RunEffect },
) => RunRecordDraft;

/** What a shadow effect would have done, in a record: deny, block, rewrite, context, stop, continue, error, … */
export function wouldHave(effect: RunEffect, status: RunRecordDraft['status']): string {
  if (status === 'timed_out') return 'timeout';
  if (status === 'failed' || effect === 'failed') return 'error';
  return effect === 'none' ? 'continue' : effect;
}

/** Kills a process group now (SIGKILL), or the child alone where there are no groups. */
function killNow(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Inputs of a shadow run, as dispatch has them. */
export interface ShadowStart {
  event: HookEvent;
  input: Readonly<Record<string, unknown>>;
  stdin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  runner?: RunnerOptions;
  warnings: string[];
}

/**
 * Starts the shadow layer's hooks for an event (undefined when there is no shadow layer or none of its hooks runs).
 * Never throws: a shadow layer that cannot be read is a warning.
 */
export function startShadow(opts: ShadowOptions & { requirementsPath: string }, s: ShadowStart): ShadowRun | undefined {
  let found: ReturnType<typeof discoverShadow>;
  try {
    found = discoverShadow(opts.requirementsPath);
  } catch (e) {
    found = { problem: (e as Error).message };
  }
  if (found === undefined) return undefined;
  if ('problem' in found) {
    s.warnings.push(`shadow layer not run: ${found.problem}`);
    return undefined;
  }
  const { considered } = considerHooks(found.discovery, s.event, s.input, { platform: s.runner?.platform });
  const runs = considered.filter((c) => c.run);
  if (runs.length === 0) return undefined;
  const release = readShadowRelease(opts.requirementsPath);
  const digest = found.discovery.managed?.digest ?? null;
  const releaseId = opts.releaseId !== undefined ? opts.releaseId : release.releaseId;
  const graceMs = Math.max(0, opts.graceMs ?? release.budgetMs ?? DEFAULT_SHADOW_GRACE_MS);
  const maxTimeout = eventSpec(s.event).maxTimeoutSec ?? Number.POSITIVE_INFINITY;
  const children: ChildProcess[] = [];
  const baseSpawn: SpawnFn = s.runner?.spawn ?? nodeSpawn;
  const spawn: SpawnFn = (file, args, o) => {
    const child = baseSpawn(file, args, o);
    children.push(child);
    if (budgetOver) killNow(child);
    return child;
  };
  let budgetOver = false;
  const killed = new Set<number>();
  const pending = runs.map((c, i) =>
    runCommand(
      {
        command: c.command,
        cwd: s.cwd,
        stdin: s.stdin,
        timeoutSec: Math.min(c.hook.timeoutSec, maxTimeout),
        env: c.hook.plugin ? pluginEnv(s.env, c.hook.plugin) : s.env,
      },
      { ...s.runner, spawn },
    ).then((r) => ({ r, i })),
  );
  const done = new Set<number>();
  for (const p of pending) void p.then(({ i }) => done.add(i));
  let timer: NodeJS.Timeout | undefined;
  return {
    enforcedDone(): void {
      if (timer !== undefined || budgetOver) return;
      timer = setTimeout(() => {
        budgetOver = true;
        runs.forEach((_, i) => {
          if (!done.has(i)) killed.add(i);
        });
        for (const child of children) killNow(child);
      }, graceMs);
    },
    async finish(build: ShadowRecordBuilder): Promise<ShadowResult> {
      this.enforcedDone();
      const results = (await Promise.all(pending)).map(({ r }) => r);
      clearTimeout(timer);
      const parsed = runs.map((c, i) => {
        const timeoutSec = Math.min(c.hook.timeoutSec, maxTimeout);
        if (killed.has(i)) {
          return {
            status: 'failed',
            verdict: 'not_run',
            error: `shadow hook killed at the shadow budget (${graceMs} ms after the enforced hooks were done)`,
            notes: [],
          } satisfies ParsedRun;
        }
        return parseRun(s.event, results[i]!, { toolName: stringOr(s.input.tool_name), timeoutSec });
      });
      const agg = aggregate(
        s.event,
        parsed.map((p, i) => ({ parsed: p, hookRunId: `shadow:${runs[i]!.hook.key}` })),
        s.input.tool_input,
      );
      const records = runs.map((c, i) => {
        const budget = killed.has(i);
        const r = budget ? { ...results[i]!, timedOut: true } : results[i]!;
        const rec = build(c, r, parsed[i]!, agg.effects[i]!);
        // Not the enforced policy's run: no revision (gates count runs by revision), the shadow layer's digest.
        rec.policy = { revision: null, digest };
        rec.shadow = {
          releaseId,
          version: release.version,
          wouldHave: wouldHave(agg.effects[i]!.effect, rec.status),
          killedAtBudget: budget,
        };
        return rec;
      });
      return { releaseId, version: release.version, outcome: agg.outcome, runs: records };
    },
  };
}

// The value when it is a string.
function stringOr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
