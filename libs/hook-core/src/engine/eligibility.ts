// Decides, for each hook of an event, whether it runs and, if not, why (shared by dispatch and explain).
import { commandFor, substitutePluginVars } from '../run/shell';
import { matcherMatches, matcherSubject } from '../match/matcher';
import type { DiscoveredHook, Discovery, HookEvent } from '../types';

/** Skip-reason prefix of a managed hook that cannot be read (its record is `failed`, not `skipped`). */
export const UNREADABLE = 'unreadable';

/** One hook's fate for an event. */
export interface Consideration {
  hook: DiscoveredHook;
  /** 1-based position among the event's hooks in configured order. */
  position: number;
  /** Whether the matcher fired (always true for events that ignore matchers). */
  matched: boolean;
  /** Runs when true. */
  run: boolean;
  /** Why it does not run (`matcher_not_matched`, `untrusted`, `modified`, `disabled`, `unsupported:…`, …). */
  skipReason?: string;
  /** The command as it will run (platform choice and plugin variables applied). */
  command: string;
}

/** Options affecting eligibility. */
export interface EligibilityOptions {
  bypassTrust?: boolean;
  platform?: NodeJS.Platform;
  /** Also consider the hooks suppressed by policy or trust (after the others; they never run). */
  includeSuppressed?: boolean;
}

/** Consider every hook of `event` in configured order for an input; the matcher sees `subject`. */
export function considerHooks(
  discovery: Discovery,
  event: HookEvent,
  input: Readonly<Record<string, unknown>>,
  options: EligibilityOptions = {},
): { considered: Consideration[]; matcherInput: string | null } {
  const subject = matcherSubject(event, input);
  const considered: Consideration[] = [];
  const seen = new Map<string, string>();
  let position = 0;
  for (const hook of discovery.hooks) {
    if (hook.event !== event) continue;
    position++;
    const raw = commandFor(hook, options.platform);
    const command = hook.plugin ? substitutePluginVars(raw, hook.plugin) : raw;
    const c: Consideration = { hook, position, matched: true, run: false, command };
    considered.push(c);
    const m = matcherMatches(hook.matcher, subject);
    if (hook.error !== undefined) {
      // A managed hook that cannot be read never runs; it counts wherever it could have run (an unreadable matcher
      // could have matched anything), so each such event records it as failed.
      if (m === false) {
        c.matched = false;
        c.skipReason = 'matcher_not_matched';
      } else if (!discovery.hooksEnabled) c.skipReason = `hooks_disabled: ${discovery.featureReason}`;
      else c.skipReason = `${UNREADABLE}: ${hook.error}`;
      continue;
    }
    if (m instanceof Error) {
      c.matched = false;
      c.skipReason = `invalid_matcher: ${m.message}`;
      continue;
    }
    if (!m) {
      c.matched = false;
      c.skipReason = 'matcher_not_matched';
      continue;
    }
    if (!discovery.hooksEnabled) c.skipReason = `hooks_disabled: ${discovery.featureReason}`;
    else if (hook.unsupported) c.skipReason = `unsupported: ${hook.unsupported}`;
    else if (hook.handler.type !== 'command') c.skipReason = `unsupported: ${hook.handler.type} handlers are not run`;
    else if (hook.handler.async) c.skipReason = 'unsupported: async hooks are not supported';
    else if (command.trim() === '') c.skipReason = 'no_command';
    else if (hook.trust === 'disabled') c.skipReason = 'disabled';
    else if (!(hook.trust === 'managed' || hook.trust === 'trusted' || options.bypassTrust)) c.skipReason = hook.trust;
    if (c.skipReason !== undefined) continue;
    // A handler runs at most once per event: an identical definition repeated in the same source file runs once.
    const identity = `${hook.sourceFile}\u0000${hook.handler.type}\u0000${command}\u0000${hook.timeoutSec}`;
    const first = seen.get(identity);
    if (first !== undefined) {
      c.skipReason = `duplicate: same handler as ${first}`;
      continue;
    }
    seen.set(identity, hook.key);
    c.run = true;
  }
  // Suppressed hooks whose matcher fires are reported as skipped with their reason (after the others: the positions
  // of the hooks that run are unchanged).
  for (const hook of options.includeSuppressed ? (discovery.suppressed ?? []) : []) {
    if (hook.event !== event) continue;
    const m = matcherMatches(hook.matcher, subject);
    if (m instanceof Error || !m) continue;
    considered.push({
      hook,
      position: ++position,
      matched: true,
      run: false,
      skipReason: hook.skipReason ?? 'suppressed',
      command: commandFor(hook, options.platform),
    });
  }
  return { considered, matcherInput: subject ? subject.value : null };
}
