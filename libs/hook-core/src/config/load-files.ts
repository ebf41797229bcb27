// Loading one hooks.json or config.toml text: syntax errors drop the file with a located diagnostic.
import type { ConfigDiagnostic } from '../types';
import { DiagnosticCollector } from './diagnostics';
import { isHookEvent } from './events';
import { parseJsonLocated } from './json-located';
import { normalizeHooksTable, type NormalizedEvent } from './normalize';
import { parseTomlLocated } from './toml-located';

/** Feature switch as read from one config.toml `[features]` table. */
export interface FeatureSetting {
  hooks: boolean;
  /** Key it came from (`hooks`, or the deprecated `zerocode_hooks`). */
  key: 'hooks' | 'zerocode_hooks';
  file: string;
}

/** One loaded file: its hooks (if it parsed) and what else discovery needs from it. */
export interface LoadedFile {
  file: string;
  kind: 'hooks.json' | 'config.toml';
  /** False when the file could not be parsed (it contributes nothing). */
  ok: boolean;
  events: NormalizedEvent[];
  /** True when the file defines any hook events (used for the "both representations" warning). */
  definesHooks: boolean;
  features?: FeatureSetting;
  /** The whole parsed TOML document (config.toml only), for trust state and project trust. */
  document?: Record<string, unknown>;
  diagnostics: ConfigDiagnostic[];
}

const HOOKS_JSON_TOP_KEYS = new Set(['hooks', 'description', '$schema']);
/** Non-event keys of a config.toml `[hooks]` table: `state` is the trust store. */
const CONFIG_HOOKS_NON_EVENTS = ['state'];

/** Severity given to syntax errors: discovery drops the file with a warning; lint reports an error. */
export type SyntaxSeverity = ConfigDiagnostic['severity'];

// Parses and normalizes a hooks.json (or Claude settings / plugin hooks.json) text.
export function loadHooksJsonText(text: string, file: string, syntaxSeverity: SyntaxSeverity = 'warning'): LoadedFile {
  const res = parseJsonLocated(text);
  if (!res.ok) {
    const d: ConfigDiagnostic = {
      severity: syntaxSeverity,
      code: 'json_syntax',
      message: `invalid JSON at line ${res.line}, column ${res.column}: ${res.message}; file ignored`,
      file,
      line: res.line,
      column: res.column,
    };
    return { file, kind: 'hooks.json', ok: false, events: [], definesHooks: false, diagnostics: [d] };
  }
  const out = new DiagnosticCollector(file, res.locator);
  const doc = res.value;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    out.add(syntaxSeverity, 'invalid_document', 'a hooks.json file must hold a JSON object; file ignored', []);
    return { file, kind: 'hooks.json', ok: false, events: [], definesHooks: false, diagnostics: out.diagnostics };
  }
  const obj = doc as Record<string, unknown>;
  const topEvents: string[] = Object.keys(obj).filter(isHookEvent);
  for (const k of Object.keys(obj)) {
    if (HOOKS_JSON_TOP_KEYS.has(k) || topEvents.includes(k)) continue;
    const hint =
      k === 'disableAllHooks' ? ': not supported here; use `[features] hooks = false` in config.toml' : ' (ignored)';
    out.warn('unknown_key', `unknown top-level key \`${k}\`${hint}`, [k]);
  }
  if (topEvents.length > 0) {
    out.warn(
      'missing_hooks_wrapper',
      `events at the top level (${topEvents.join(', ')}) are not read; put them inside a "hooks" object`,
      [topEvents[0] ?? ''],
    );
  }
  const events =
    obj['hooks'] === undefined ? [] : normalizeHooksTable(obj['hooks'], { file, basePath: ['hooks'] }, out);
  return { file, kind: 'hooks.json', ok: true, events, definesHooks: events.length > 0, diagnostics: out.diagnostics };
}

// Parses a config.toml text: inline `[hooks]` event tables plus the `[features]` hooks switch.
export function loadConfigTomlText(text: string, file: string, syntaxSeverity: SyntaxSeverity = 'warning'): LoadedFile {
  const res = parseTomlLocated(text);
  if (!res.ok) {
    const d: ConfigDiagnostic = {
      severity: syntaxSeverity,
      code: 'toml_syntax',
      message: `invalid TOML at line ${res.line}, column ${res.column}: ${res.message}; file ignored`,
      file,
      line: res.line,
      column: res.column,
    };
    return { file, kind: 'config.toml', ok: false, events: [], definesHooks: false, diagnostics: [d] };
  }
  const out = new DiagnosticCollector(file, res.locator);
  const doc = res.value;
  const hooks = doc['hooks'];
  const events =
    hooks === undefined
      ? []
      : normalizeHooksTable(hooks, { file, basePath: ['hooks'], ignoreKeys: CONFIG_HOOKS_NON_EVENTS }, out);
  const loaded: LoadedFile = {
    file,
    kind: 'config.toml',
    ok: true,
    events,
    definesHooks: events.length > 0,
    document: doc,
    diagnostics: out.diagnostics,
  };
  const features = doc['features'];
  if (typeof features === 'object' && features !== null && !Array.isArray(features)) {
    const f = features as Record<string, unknown>;
    const alias = f['zerocode_hooks'];
    const main = f['hooks'];
    if (alias !== undefined) {
      out.warn('deprecated_feature_alias', '`[features] zerocode_hooks` is a deprecated alias; use `hooks`', [
        'features',
        'zerocode_hooks',
      ]);
    }
    for (const [key, v] of [
      ['hooks', main],
      ['zerocode_hooks', alias],
    ] as const) {
      if (v !== undefined && typeof v !== 'boolean') {
        out.warn('invalid_value', `\`[features] ${key}\` must be a boolean; ignored`, ['features', key]);
      }
    }
    if (typeof main === 'boolean') loaded.features = { hooks: main, key: 'hooks', file };
    else if (typeof alias === 'boolean') loaded.features = { hooks: alias, key: 'zerocode_hooks', file };
  }
  return loaded;
}
