// explain(): for each hook of an event, would it run for a given input, and if not, why.
import type { Discovery, HookEvent, LayerKind, SkippedSource, TrustStatus } from '../types';
import { buildEventInput } from './input';
import { considerHooks } from './eligibility';

/** What explain is asked about: the value the event's matcher filters. */
export interface ExplainQuery {
  tool?: string;
  source?: string;
  trigger?: string;
  agentType?: string;
  reason?: string;
}

/** One hook's verdict. */
export interface ExplainEntry {
  key: string;
  hash: string;
  layer: LayerKind;
  sourceFile: string;
  matcher: string | null;
  trust: TrustStatus;
  managed: boolean;
  command: string;
  wouldRun: boolean;
  /** A managed hook that cannot be read: what is wrong (it never runs and is recorded as failed); else null. */
  error: string | null;
  /** Why not (`matcher_not_matched`, `untrusted`, `modified`, `disabled`, `unsupported: …`, `duplicate: …`, `hooks_disabled: …`). */
  reason: string | null;
}

/** Explain result: the matcher input, every hook of the event, and the skipped sources. */
export interface ExplainResult {
  event: HookEvent;
  matcherInput: string | null;
  hooksEnabled: boolean;
  featureReason: string;
  hooks: ExplainEntry[];
  skippedSources: SkippedSource[];
}

/** Say, for each hook of `event`, whether it would run for `query` (nothing is executed). */
export function explain(
  discovery: Discovery,
  event: HookEvent,
  query: ExplainQuery = {},
  options: { bypassTrust?: boolean; platform?: NodeJS.Platform } = {},
): ExplainResult {
  const raw: Record<string, unknown> = {};
  if (query.tool !== undefined) raw.tool_name = query.tool;
  if (query.source !== undefined) raw.source = query.source;
  if (query.trigger !== undefined) raw.trigger = query.trigger;
  if (query.agentType !== undefined) raw.agent_type = query.agentType;
  if (query.reason !== undefined) raw.reason = query.reason;
  const { input } = buildEventInput(event, raw, { cwd: '/' });
  const { considered, matcherInput } = considerHooks(discovery, event, input, options);
  return {
    event,
    matcherInput,
    hooksEnabled: discovery.hooksEnabled,
    featureReason: discovery.featureReason,
    hooks: considered.map((c) => ({
      key: c.hook.key,
      hash: c.hook.hash,
      layer: c.hook.layer,
      sourceFile: c.hook.sourceFile,
      matcher: c.hook.matcher ?? null,
      trust: c.hook.trust,
      managed: c.hook.managed,
      command: c.command,
      wouldRun: c.run,
      error: c.hook.error ?? null,
      reason: c.run ? null : (c.skipReason ?? null),
    })),
    skippedSources: discovery.skipped,
  };
}
