// lintPolicy: semantic checks of a requirements policy (errors block publication, warnings inform), all located.
import type { ConfigDiagnostic, HookEvent } from '../types';
import { DiagnosticCollector, type DocPath, type Locator } from '../config/diagnostics';
import {
  CONTEXT_EVENTS,
  isHookEvent,
  MATCHER_EVENTS,
  MAX_TIMEOUT_SEC,
  SESSION_END_MAX_TIMEOUT_SEC,
  SUSPICIOUS_TIMEOUT_SEC,
} from '../config/events';
import { compileConfigMatcher, matcherLooksLikeExpression } from '../config/matcher';
import { additionalContextIgnored, sessionEndClamped, timeoutClamped } from '../config/messages';
import { tomlLocator } from '../config/toml-located';
import { HOOKS_TABLE_KEYS, INTERPRETED_TOP_KEYS } from './keys';
import type { PolicyDocument, PolicyHandler } from './schema';
import { isPlainObject } from './parse';
import { checkBundleContent, filePathProblem } from '../bundle/content';

/** A file shipped alongside the policy into managed_dir (path relative to managed_dir). */
export interface PolicyFile {
  path: string;
  mode?: number;
  size?: number;
}

export interface LintPolicyOptions {
  /** The TOML text the policy came from: diagnostics then carry line/column. */
  sourceText?: string;
  /** File name put on diagnostics (default `requirements.toml`). */
  file?: string;
  /**
   * The engine's reading of the managed layer: a whole-number timeout above the limit is a warning (the hook runs with
   * the limit), and the matcher of an event that ignores matchers is not compiled (as the reference engine does).
   * Authoring (the API, `zerotwo-hooks lint`) leaves this off, so neither is ever published.
   */
  engine?: boolean;
}

export interface LintResult {
  errors: ConfigDiagnostic[];
  warnings: ConfigDiagnostic[];
}

/** Largest timeout accepted in a managed policy (one day): the engine's limit. */
export const MAX_POLICY_TIMEOUT_SEC = MAX_TIMEOUT_SEC;

// What the engine accepts as managed_dir: a POSIX absolute path or home-relative `~/...` (the spec's example). Where
// Hookwarden distributes the layer, the bundle content rules (bundle/content.ts) are stricter: no `~`.
export function isPosixManagedDir(dir: string): boolean {
  return (dir.startsWith('/') || dir.startsWith('~/')) && !dir.includes('\0') && !/(^|\/)\.\.(\/|$)/.test(dir);
}

// Windows absolute path: drive letter (`C:\...`) or UNC (`\\server\share`).
export function isWindowsAbsolute(dir: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(dir) || /^\\\\[^\\]+\\[^\\]+/.test(dir);
}

// Why a shipped file path is unsafe, or undefined when it is a clean relative path inside managed_dir.
export function unsafeFilePath(p: string): string | undefined {
  return filePathProblem(p)?.message;
}

// Escapes a string for use inside a RegExp.
function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Script paths under `dir` referenced by a command (relative to dir, `/`-separated).
function referencedScripts(command: string, dir: string, sep: '/' | '\\'): string[] {
  const base = dir.replace(/[\\/]+$/, '');
  const re = new RegExp(`${escapeRe(base)}${escapeRe(sep)}([^\\s'"\`;|&)<>]+)`, 'g');
  const out: string[] = [];
  for (const m of command.matchAll(re)) if (m[1]) out.push(m[1].split('\\').join('/'));
  return out;
}

// Checks one handler; `check` reports into the collector.
function lintHandler(
  event: HookEvent,
  h: PolicyHandler,
  path: DocPath,
  policy: PolicyDocument,
  shipped: Set<string> | undefined,
  modes: Map<string, number> | undefined,
  out: DiagnosticCollector,
  engine: boolean,
): void {
  const file = out.file ?? 'requirements.toml';
  if (h.type !== 'command') {
    out.warn('handler_type_unsupported', `\`${h.type}\` handlers are parsed but skipped; only \`command\` runs`, [
      ...path,
      'type',
    ]);
  }
  if (h.async === true)
    out.warn('async_unsupported', 'async hooks are not supported; this handler is skipped', [...path, 'async']);
  if (typeof h.timeout === 'number') {
    const t = h.timeout;
    if (engine && Number.isInteger(t) && t > MAX_POLICY_TIMEOUT_SEC) {
      if (event === 'SessionEnd')
        out.warn('session_end_timeout_clamped', sessionEndClamped(file), [...path, 'timeout']);
      else out.warn('timeout_clamped', timeoutClamped(t, file), [...path, 'timeout']);
    } else if (!Number.isInteger(t) || t < 0 || t > MAX_POLICY_TIMEOUT_SEC) {
      out.error(
        'timeout_out_of_range',
        `timeout must be an integer number of seconds from 0 to ${MAX_POLICY_TIMEOUT_SEC}, got ${t}`,
        [...path, 'timeout'],
      );
    } else if (event === 'SessionEnd' && t > SESSION_END_MAX_TIMEOUT_SEC) {
      out.warn('session_end_timeout_clamped', sessionEndClamped(file), [...path, 'timeout']);
    } else if (t > SUSPICIOUS_TIMEOUT_SEC) {
      out.warn('timeout_suspicious', `timeout ${t} s is over an hour; timeout is in seconds, not milliseconds`, [
        ...path,
        'timeout',
      ]);
    }
  }
  if (typeof h.additionalContextLimit === 'number') {
    const l = h.additionalContextLimit;
    if (!Number.isInteger(l) || l < 0) {
      out.error('invalid_value', `additionalContextLimit must be a non-negative integer, got ${l}`, [
        ...path,
        'additionalContextLimit',
      ]);
    } else if (!CONTEXT_EVENTS.has(event)) {
      out.warn('additional_context_ignored', additionalContextIgnored(event, file), [
        ...path,
        'additionalContextLimit',
      ]);
    }
  }
  const posixDir = policy.hooks?.managed_dir;
  if (h.type === 'command' && h.command !== undefined && posixDir !== undefined) {
    const refs = referencedScripts(h.command, posixDir, '/');
    if (refs.length === 0) {
      out.warn('command_outside_managed_dir', `command does not reference a script under managed_dir ${posixDir}`, [
        ...path,
        'command',
      ]);
    }
    for (const r of shipped ? refs : []) {
      if (!shipped?.has(r))
        out.warn('managed_script_missing', `command references ${posixDir}/${r}, which the policy does not ship`, [
          ...path,
          'command',
        ]);
    }
    // A shipped script run directly (first word of the command) needs an executable mode.
    const first = h.command.trim().split(/\s+/)[0] ?? '';
    const direct = referencedScripts(first, posixDir, '/')[0];
    const mode = direct !== undefined ? modes?.get(direct) : undefined;
    if (mode !== undefined && (mode & 0o111) === 0) {
      out.warn(
        'script_not_executable',
        `${posixDir}/${direct} is run directly but ships without an executable mode (${mode.toString(8)})`,
        [...path, 'command'],
      );
    }
  }
  const winDir = policy.hooks?.windows_managed_dir;
  const winCmd = h.command_windows ?? h.commandWindows;
  if (winCmd !== undefined && winDir !== undefined && shipped) {
    for (const r of [...referencedScripts(winCmd, winDir, '\\'), ...referencedScripts(winCmd, winDir, '/')]) {
      if (!shipped.has(r)) {
        out.warn(
          'managed_script_missing',
          `Windows command references ${winDir}\\${r}, which the policy does not ship`,
          [...path, h.command_windows !== undefined ? 'command_windows' : 'commandWindows'],
        );
      }
    }
  }
}

// Checks a matcher group's matcher (`engine`: an event that ignores matchers never compiles it).
function lintMatcher(
  event: HookEvent,
  matcher: string | undefined,
  path: DocPath,
  out: DiagnosticCollector,
  engine: boolean,
): void {
  if (matcher === undefined || (engine && !MATCHER_EVENTS.has(event))) return;
  const c = compileConfigMatcher(matcher);
  if (!c.ok) {
    out.error('invalid_matcher', `invalid matcher ${JSON.stringify(matcher)}: ${c.error}`, path);
    return;
  }
  if (!MATCHER_EVENTS.has(event) && c.matcher.kind !== 'all') {
    out.warn(
      'matcher_ignored',
      `${event} does not support matchers; ${JSON.stringify(matcher)} is ignored and the group matches every ${event}`,
      path,
    );
  } else if (matcherLooksLikeExpression(matcher)) {
    out.warn(
      'matcher_suspicious',
      `matcher ${JSON.stringify(matcher)} contains spaces or operators; it is a regex over names and will likely never match`,
      path,
    );
  }
}

/** Lints a policy: errors (invalid regex, bad paths/timeouts, unknown events) and warnings, each with a location. */
export function lintPolicy(policy: PolicyDocument, files?: PolicyFile[], options: LintPolicyOptions = {}): LintResult {
  const locator: Locator | undefined = options.sourceText !== undefined ? tomlLocator(options.sourceText) : undefined;
  const out = new DiagnosticCollector(options.file ?? 'requirements.toml', locator);
  const hooks = (policy.hooks ?? {}) as Record<string, unknown>;
  const engine = options.engine === true;

  const dir = policy.hooks?.managed_dir;
  const wdir = policy.hooks?.windows_managed_dir;
  // A policy with its files is a bundle Hookwarden distributes: the bundle content rules apply (the agent checks the
  // same before writing). A requirements.toml alone is what the engine reads: only its own managed_dir syntax applies.
  const content = files
    ? checkBundleContent({
        managedDir: dir,
        windowsManagedDir: wdir,
        files: files.map((f) => ({ path: f.path, mode: f.mode ?? 0o644, size: f.size ?? 0 })),
        requirementsBytes: options.sourceText !== undefined ? Buffer.byteLength(options.sourceText, 'utf8') : undefined,
      })
    : [];
  for (const p of content) out.error(p.code, p.message, p.where);
  if (!files && dir !== undefined && !isPosixManagedDir(dir)) {
    out.error(
      'managed_dir_not_absolute',
      `managed_dir must be an absolute POSIX path or start with ~/, got ${JSON.stringify(dir)}`,
      ['hooks', 'managed_dir'],
    );
  }
  if (!files && wdir !== undefined && !isWindowsAbsolute(wdir)) {
    out.error(
      'windows_managed_dir_not_absolute',
      `windows_managed_dir must be an absolute Windows path (C:\\... or \\\\server\\share), got ${JSON.stringify(wdir)}`,
      ['hooks', 'windows_managed_dir'],
    );
  }

  let shipped: Set<string> | undefined;
  let modes: Map<string, number> | undefined;
  if (files) {
    shipped = new Set();
    modes = new Map();
    const badPaths = new Set(
      content.filter((p) => p.where[0] === 'files' && p.where[2] === 'path').map((p) => p.where[1]),
    );
    files.forEach((f, i) => {
      if (badPaths.has(i)) return;
      shipped?.add(f.path);
      if (f.mode !== undefined) modes?.set(f.path, f.mode);
    });
  }

  let commandHooks = 0;
  for (const [event, groups] of Object.entries(hooks)) {
    if (HOOKS_TABLE_KEYS.includes(event)) continue;
    if (!isHookEvent(event)) {
      out.error('unknown_event', `unknown hook event \`${event}\` in [hooks]`, ['hooks', event]);
      continue;
    }
    if (!Array.isArray(groups)) continue;
    groups.forEach((g: unknown, gi) => {
      if (!isPlainObject(g)) return;
      lintMatcher(
        event,
        typeof g['matcher'] === 'string' ? g['matcher'] : undefined,
        ['hooks', event, gi, 'matcher'],
        out,
        engine,
      );
      const handlers = Array.isArray(g['hooks']) ? (g['hooks'] as unknown[]) : [];
      handlers.forEach((h, hi) => {
        if (!isPlainObject(h)) return; // the schema reports it
        const handler = h as PolicyHandler;
        if (handler.type === 'command') commandHooks++;
        lintHandler(event, handler, ['hooks', event, gi, 'hooks', hi], policy, shipped, modes, out, engine);
      });
    });
  }
  if (commandHooks > 0 && dir === undefined) {
    out.warn(
      'managed_dir_missing',
      'managed hooks are defined but [hooks] managed_dir is not set; commands should use absolute paths under a managed directory',
      ['hooks'],
    );
  }
  if (policy.allow_managed_hooks_only === true && commandHooks === 0) {
    out.warn(
      'no_managed_hooks',
      'allow_managed_hooks_only = true with no managed command hooks: no hook will run at all',
      ['allow_managed_hooks_only'],
    );
  }
  if (policy.features?.hooks === false && commandHooks > 0) {
    out.warn('hooks_forced_off', '[features] hooks = false forces hooks off, so the managed hooks here never run', [
      'features',
      'hooks',
    ]);
  }
  const carried = Object.keys(policy).filter((k) => !INTERPRETED_TOP_KEYS.includes(k));
  for (const k of carried)
    out.warn('not_interpreted', `\`${k}\` is carried through unchanged; the hooks system does not interpret it`, [k]);

  return {
    errors: out.diagnostics.filter((d) => d.severity === 'error'),
    warnings: out.diagnostics.filter((d) => d.severity === 'warning'),
  };
}
