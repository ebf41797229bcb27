// dispatch(): discovery → match → run → outcome → spill → run records, for one hook event.
import { tmpdir } from 'node:os';
import { aggregate, type RunEffect } from '../outcome/aggregate';
import { eventProducesContext, parseRun } from '../outcome/parse';
import type { HookOutcome, ParsedRun } from '../outcome/types';
import {
  captureOutput,
  captureText,
  captureToolCall,
  compileRedactions,
  DEFAULT_CAPTURE_SETTINGS,
  MAX_ERROR_BYTES,
  redactExcerpt,
} from '../record/capture';
import type { CaptureSettings } from '../record/capture-schema';
import type { LinearRegex } from '../match/regex';
import type { RunRecordDraft, ToolCall } from '../record/schema';
import type { RunRecordSink } from '../record/sink';
import { SpoolSink } from '../record/spool';
import { randomUuid } from '../record/canonical';
import { pluginEnv } from '../run/shell';
import { runCommand, systemClock, type RunnerOptions, type RunResult } from '../run/runner';
import { DEFAULT_CONTEXT_LIMIT_TOKENS, spillIfNeeded, type SpillFs } from '../spill/spill';
import { discoverHooks, type DiscoverOptions } from '../config/discover';
import { eventSpec } from '../event-spec';
import type { Discovery, HookEvent } from '../types';
import { buildEventInput } from './input';
import { considerHooks, UNREADABLE, type Consideration } from './eligibility';
import { shadowLayerFor, type ShadowOptions, type ShadowResult } from './shadow-hook';

/**
 * Options of a dispatch. Hooks come from `discovery` (pre-computed), else `discover()`, else
 * `discoverHooks({ ...discoverOptions, cwd: input.cwd, bypassTrust })`.
 */
export interface DispatchOptions {
  discovery?: Discovery;
  discover?: () => Discovery | Promise<Discovery>;
  discoverOptions?: DiscoverOptions;
  /** `--dangerously-bypass-hook-trust`: run enabled hooks without persisted trust. */
  bypassTrust?: boolean;
  /** `<temp_dir>` for spilled output (default `os.tmpdir()`). */
  tempDir?: string;
  /** Record sink; default: a SpoolSink on `spoolDir` when given, else none. */
  sink?: RunRecordSink;
  spoolDir?: string;
  /** What records keep of hook output (default: digests + 2 KiB redacted excerpts). */
  capture?: Partial<CaptureSettings>;
  /** Policy revision/digest stamped on records (default: the managed layer's digest). */
  policy?: { revision: string | null; digest: string | null };
  /** Shell choice, output cap, kill grace, injectable spawn and clock. */
  runner?: RunnerOptions;
  /** Environment for hooks (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  uuid?: () => string;
  spillFs?: SpillFs;
  /** The shadow layer (observe mode; see engine/shadow); `false` turns it off. Default: beside requirements.toml. */
  shadow?: ShadowOptions | false;
}

/** What a dispatch returns (also what `zerotwo-hooks dispatch` prints). */
export interface DispatchResult {
  event: HookEvent;
  outcome: HookOutcome;
  /** One record per handler considered (ran, or skipped with its reason), in configured order. */
  runs: RunRecordDraft[];
  warnings: string[];
  /** The shadow layer's runs and what it would have decided (never applied); absent without one. */
  shadow?: ShadowResult;
}

/** `hook_run_id` of a continuation prompt: `<event_snake>:<reference list position>:<source file>`. */
function hookRunId(event: HookEvent, c: Consideration): string {
  return `${eventSpec(event).snake}:${c.hook.displayOrder ?? c.position - 1}:${c.hook.sourceFile}`;
}

/** A RunResult for a hook that did not run. */
const NOT_RUN: RunResult = {
  startedAt: 0,
  durationMs: 0,
  exitCode: null,
  signal: null,
  timedOut: false,
  stdout: '',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
};

/** Run the hooks of one event and aggregate their outcome; records are written to the sink before this resolves. */
export async function dispatch(
  event: HookEvent,
  rawInput: Readonly<Record<string, unknown>>,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  const discovery =
    options.discovery ??
    (options.discover
      ? await options.discover()
      : discoverHooks({
          ...options.discoverOptions,
          cwd: typeof rawInput.cwd === 'string' && rawInput.cwd !== '' ? rawInput.cwd : options.discoverOptions?.cwd,
          bypassTrust: options.bypassTrust ?? options.discoverOptions?.bypassTrust,
        }));
  // No entropy cache: ids stay unique even in processes started from one V8 startup snapshot.
  const uuid = options.uuid ?? randomUuid;
  const clock = options.runner?.clock ?? systemClock;
  const tempDir = options.tempDir ?? tmpdir();
  const warnings: string[] = [];
  for (const d of discovery.diagnostics)
    warnings.push(
      `${d.severity}: ${d.message}${d.file ? ` (${d.file}${d.line ? `:${d.line}:${d.column ?? 1}` : d.path ? ` ${d.path}` : ''})` : ''}`,
    );
  for (const s of discovery.skipped) warnings.push(`skipped ${s.layer} source ${s.path}: ${s.reason}`);

  const { input, ignoredFields } = buildEventInput(event, rawInput);
  if (ignoredFields.length > 0)
    warnings.push(`input fields not defined for ${event} were not passed to hooks: ${ignoredFields.join(', ')}`);
  const cwd = input.cwd as string;
  const sessionId = input.session_id as string;
  const toolName = typeof input.tool_name === 'string' ? input.tool_name : undefined;
  const stdin = JSON.stringify(input);
  const { considered, matcherInput } = considerHooks(discovery, event, input, {
    bypassTrust: options.bypassTrust,
    platform: options.runner?.platform,
    includeSuppressed: true,
  });
  const relevant = considered.filter((c) => c.matched || c.skipReason?.startsWith('invalid_matcher'));

  // Launch every eligible hook at once; results keep configured order (the event's timeout cap applies).
  const maxTimeout = eventSpec(event).maxTimeoutSec ?? Number.POSITIVE_INFINITY;
  const baseEnv = options.env ?? process.env;
  const running = Promise.all(
    relevant.map((c) =>
      c.run
        ? runCommand(
            {
              command: c.command,
              cwd,
              stdin,
              timeoutSec: Math.min(c.hook.timeoutSec, maxTimeout),
              env: c.hook.plugin ? pluginEnv(baseEnv, c.hook.plugin) : baseEnv,
            },
            options.runner,
          )
        : Promise.resolve(NOT_RUN),
    ),
  );
  // The shadow layer starts once the enforced hooks are launched (observe mode: engine/shadow).
  const shadow = shadowLayerFor(discovery, options, {
    event,
    input,
    stdin,
    cwd,
    env: baseEnv,
    runner: options.runner,
    warnings,
  });
  const results = await running;
  shadow?.enforcedDone();

  // Parse, then spill model-visible text (context per handler limit; feedback/continuations at the default limit).
  const spillPaths: (string | null)[] = relevant.map(() => null);
  const parsed: ParsedRun[] = await Promise.all(
    relevant.map(async (c, i) => {
      if (!c.run) return { status: 'ok', verdict: 'not_run', notes: [] } satisfies ParsedRun;
      // The timeout named in a timed-out run's error is the one applied (the event's cap included).
      const p = parseRun(event, results[i]!, { toolName, timeoutSec: Math.min(c.hook.timeoutSec, maxTimeout) });
      const spillOpts = { tempDir, sessionId, uuid, fs: options.spillFs };
      if (p.additionalContext !== undefined) {
        const limit = c.hook.handler.additionalContextLimit ?? DEFAULT_CONTEXT_LIMIT_TOKENS;
        const s = await spillIfNeeded(p.additionalContext, limit, spillOpts);
        p.additionalContext = s.text;
        if (s.spillPath) spillPaths[i] = s.spillPath;
        if (s.spillError) warnings.push(`could not save spilled output of ${c.hook.key}: ${s.spillError}`);
      }
      if (p.block) {
        const s = await spillIfNeeded(p.block.reason, DEFAULT_CONTEXT_LIMIT_TOKENS, spillOpts);
        p.block.reason = s.text;
        if (s.spillPath) spillPaths[i] ??= s.spillPath;
      }
      if (c.hook.handler.additionalContextLimit !== undefined && !eventProducesContext(event))
        p.notes.push(`additionalContextLimit is ignored: ${event} cannot produce additional context`);
      return p;
    }),
  );

  const ran = relevant.map((c, i) => ({ c, i })).filter(({ c }) => c.run);
  const agg = aggregate(
    event,
    ran.map(({ c, i }) => ({ parsed: parsed[i]!, hookRunId: hookRunId(event, c) })),
    input.tool_input,
  );
  warnings.push(...agg.outcome.conflicts);
  // Unreadable managed hooks: never run, each a failure of this event (the spec's failed-hook semantics: reported,
  // and the event goes on).
  for (const c of relevant) {
    if (!isUnreadable(c)) continue;
    agg.outcome.failures++;
    warnings.push(`managed hook ${c.hook.key} cannot be read and did not run: ${c.hook.error ?? ''}`);
  }
  const effectOf = new Map<number, { decision?: string; effect: RunEffect }>();
  ran.forEach(({ i }, k) => effectOf.set(i, agg.effects[k]!));
  for (const [i, p] of parsed.entries()) {
    const key = relevant[i]!.hook.key;
    if (p.status === 'failed') warnings.push(`hook ${key} failed: ${p.error ?? 'unknown error'}`);
    for (const note of p.notes) warnings.push(`hook ${key}: ${note}`);
  }

  // Records: one per considered hook whose matcher fired (or that was skipped before matching could apply).
  let capture: CaptureSettings = { ...DEFAULT_CAPTURE_SETTINGS, ...options.capture };
  const { patterns, invalid } = compileRedactions(capture);
  if (invalid.length > 0) {
    // A redaction pattern that does not compile never stops the hooks; no text it was meant to cover is recorded.
    for (const bad of invalid)
      warnings.push(
        `invalid redaction pattern ${JSON.stringify(bad.pattern)}: ${bad.error}; excerpts are not recorded`,
      );
    if (capture.capture === 'excerpts') capture = { ...capture, capture: 'digests' };
  }
  const policy = options.policy ?? { revision: null, digest: discovery.managed?.digest ?? null };
  const dispatchId = uuid();
  const recordedAt = new Date(clock.now()).toISOString();
  const turnId = typeof input.turn_id === 'string' && input.turn_id !== '' ? input.turn_id : null;
  // The tool call as kept in records (hashes, redacted excerpt): only when there is a record to put it in.
  const toolCall =
    relevant.length > 0 || shadow !== undefined ? captureToolCall(toolName, input.tool_input, capture, patterns) : null;
  const ctx: RecordContext = {
    toolCall,
    event,
    uuid,
    dispatchId,
    recordedAt,
    sessionId,
    turnId,
    matcherInput,
    capture,
    patterns,
    policy,
    spillPath: null,
  };
  const runs = relevant.map((c, i) =>
    buildRecord(c, results[i]!, parsed[i]!, effectOf.get(i), { ...ctx, spillPath: spillPaths[i] ?? null }),
  );
  const shadowResult = await shadow?.finish((c, r, p, eff) => buildRecord(c, r, p, eff, ctx));
  const written = shadowResult ? [...runs, ...shadowResult.runs] : runs;
  const sink = options.sink ?? (options.spoolDir ? new SpoolSink(options.spoolDir) : undefined);
  if (sink && written.length > 0) await sink.write(written);
  return { event, outcome: agg.outcome, runs, warnings, ...(shadowResult ? { shadow: shadowResult } : {}) };
}

/** Context shared by the records of one dispatch. */
interface RecordContext {
  event: HookEvent;
  /** The tool call of the event, as the capture policy keeps it (the same for every record of the dispatch). */
  toolCall: ToolCall | null;
  uuid: () => string;
  dispatchId: string;
  recordedAt: string;
  sessionId: string;
  turnId: string | null;
  matcherInput: string | null;
  capture: CaptureSettings;
  patterns: readonly LinearRegex[];
  policy: { revision: string | null; digest: string | null };
  spillPath: string | null;
}

// Is this a managed hook that cannot be read (recorded as failed wherever it could have run)?
function isUnreadable(c: Consideration): boolean {
  return !c.run && c.hook.error !== undefined && c.skipReason?.startsWith(UNREADABLE) === true;
}

/** Build the run record of one considered hook. */
function buildRecord(
  c: Consideration,
  r: RunResult,
  p: ParsedRun,
  eff: { decision?: string; effect: RunEffect } | undefined,
  ctx: RecordContext,
): RunRecordDraft {
  const h = c.hook;
  const unreadable = isUnreadable(c);
  const status: RunRecordDraft['status'] = unreadable
    ? 'failed'
    : !c.run
      ? 'skipped'
      : r.timedOut
        ? 'timed_out'
        : p.status === 'failed'
          ? 'failed'
          : 'ran';
  const reason = captureText(p.block?.reason, ctx.capture, ctx.patterns);
  const feedbackText = [p.systemMessage, p.stop?.stopReason].filter((t): t is string => typeof t === 'string');
  const feedback = captureText(
    feedbackText.length > 0 ? feedbackText.join('\n') : undefined,
    ctx.capture,
    ctx.patterns,
  );
  return {
    schemaVersion: 1,
    id: ctx.uuid(),
    recordedAt: ctx.recordedAt,
    dispatchId: ctx.dispatchId,
    sessionId: ctx.sessionId,
    turnId: ctx.turnId,
    event: ctx.event,
    matcherInput: ctx.matcherInput,
    hook: {
      key: h.key,
      hash: h.hash,
      layer: h.layer,
      sourceFile: h.sourceFile,
      plugin: h.plugin?.name ?? null,
      matcher: h.matcher ?? null,
      managed: h.managed,
      trust: h.trust,
      timeoutSec: h.timeoutSec,
    },
    status,
    skipReason: c.run
      ? r.spawnError !== undefined
        ? 'spawn_error'
        : null
      : unreadable
        ? UNREADABLE
        : (c.skipReason ?? 'skipped'),
    startedAt: c.run ? new Date(r.startedAt).toISOString() : null,
    durationMs: c.run ? r.durationMs : null,
    exitCode: c.run ? r.exitCode : null,
    signal: c.run ? r.signal : null,
    timedOut: r.timedOut,
    verdict: p.verdict,
    error: unreadable
      ? redactExcerpt(`managed hook cannot be read: ${h.error ?? ''}`, MAX_ERROR_BYTES, ctx.patterns)
      : p.error !== undefined
        ? redactExcerpt(p.error, MAX_ERROR_BYTES, ctx.patterns)
        : null,
    decision: eff?.decision ?? null,
    effect: c.run ? (eff?.effect ?? 'none') : unreadable ? 'failed' : 'none',
    notes: p.notes,
    reason: reason.text,
    ...(reason.sha256 !== undefined ? { reasonSha256: reason.sha256 } : {}),
    feedback: feedback.text,
    ...(feedback.sha256 !== undefined ? { feedbackSha256: feedback.sha256 } : {}),
    toolCall: ctx.toolCall,
    stdout: c.run ? captureOutput(r.stdout, r.stdoutTruncated, ctx.capture, ctx.patterns) : null,
    stderr: c.run ? captureOutput(r.stderr, r.stderrTruncated, ctx.capture, ctx.patterns) : null,
    spillPath: ctx.spillPath,
    policy: ctx.policy,
  };
}
