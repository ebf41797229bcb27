// Parsing and validating requirements.toml (text or structured JSON) into a PolicyDocument with located diagnostics.
import type { z } from 'zod';
import type { ConfigDiagnostic } from '../types';
import { DiagnosticCollector, type DocPath, type Locator } from '../config/diagnostics';
import { isHookEvent } from '../config/events';
import { parseTomlLocated } from '../config/toml-located';
import { markTomlFloats, TomlFloat } from './toml-values';
import { HOOKS_TABLE_KEYS, INTERPRETED_TOP_KEYS } from './keys';
import type { PolicyDocument } from './schema';
import { readPolicyShape } from './shape';

export type PolicyParseResult =
  | { ok: true; policy: PolicyDocument; diagnostics: ConfigDiagnostic[] }
  | { ok: false; diagnostics: ConfigDiagnostic[] };

const DEFAULT_FILE = 'requirements.toml';

// Is this a plain object (not an array, date or null)?
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

// Reports values TOML cannot represent (null, undefined, functions, bigint out of range...) in structured input.
function checkTomlRepresentable(v: unknown, path: Array<string | number>, out: DiagnosticCollector): void {
  if (v === null || v === undefined) {
    out.error('invalid_type', 'TOML has no null value; remove the key or give a value', path);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => checkTomlRepresentable(x, [...path, i], out));
  } else if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) checkTomlRepresentable(x, [...path, k], out);
  } else if (v instanceof TomlFloat) {
    // an integral TOML float, kept as a float
  } else if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) out.error('invalid_type', 'invalid date', path);
  } else if (!['string', 'number', 'boolean'].includes(typeof v)) {
    out.error('invalid_type', `a ${typeof v} cannot be written to TOML`, path);
  }
}

// Maps a zod issue to located diagnostics.
function reportIssue(issue: z.core.$ZodIssue, out: DiagnosticCollector): void {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys)
      out.error('unknown_key', `unknown key \`${key}\` (not part of the hooks schema)`, [...path, key]);
    return;
  }
  const code = issue.code === 'invalid_type' ? 'invalid_type' : 'invalid_value';
  out.error(code, issue.message, path);
}

// PolicyDocumentSchema.safeParse: the zod-free reading when it vouches for the value, else the schema (loaded then).
function schemaParse(value: unknown): z.ZodSafeParseResult<PolicyDocument> {
  const data = readPolicyShape(value);
  if (data !== undefined) return { success: true, data };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- zod loads only for a document it must judge
  return (require('./schema') as typeof import('./schema')).PolicyDocumentSchema.safeParse(value);
}

// Shared validation of an already-parsed requirements document.
function validate(value: unknown, out: DiagnosticCollector): PolicyParseResult {
  if (!isPlainObject(value)) {
    out.error('invalid_type', 'a requirements document must be an object (a TOML table)', []);
    return { ok: false, diagnostics: out.diagnostics };
  }
  checkTomlRepresentable(value, [], out);

  const unknownEvents = new Set<string>();
  const hooks = value['hooks'];
  if (isPlainObject(hooks)) {
    for (const key of Object.keys(hooks)) {
      if (HOOKS_TABLE_KEYS.includes(key) || isHookEvent(key)) continue;
      unknownEvents.add(key);
      out.error('unknown_event', `unknown hook event \`${key}\` in [hooks]`, ['hooks', key]);
    }
  }
  const parsed = schemaParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.path[0] === 'hooks' && unknownEvents.has(String(issue.path[1]))) continue;
      reportIssue(issue, out);
    }
  }

  const features = value['features'];
  if (isPlainObject(features) && typeof features['zerocode_hooks'] === 'boolean') {
    const both = typeof features['hooks'] === 'boolean' && features['hooks'] !== features['zerocode_hooks'];
    out.warn(
      'deprecated_feature_alias',
      both
        ? '`zerocode_hooks` is a deprecated alias of `hooks` and disagrees with it; `hooks` wins'
        : '`zerocode_hooks` is a deprecated alias; use `[features] hooks`',
      ['features', 'zerocode_hooks'],
    );
  }
  const carried = Object.keys(value).filter((k) => !INTERPRETED_TOP_KEYS.includes(k));
  if (isPlainObject(features)) {
    for (const k of Object.keys(features)) if (k !== 'hooks' && k !== 'zerocode_hooks') carried.push(`features.${k}`);
  }
  if (carried.length > 0) {
    out.warn(
      'not_interpreted',
      `carried through unchanged, not interpreted by the hooks system: ${carried.sort().join(', ')}`,
      [],
    );
  }

  const hasError = out.diagnostics.some((d) => d.severity === 'error');
  if (hasError || !parsed.success) return { ok: false, diagnostics: out.diagnostics };
  return { ok: true, policy: parsed.data, diagnostics: out.diagnostics };
}

/** Parses requirements.toml text: TOML syntax errors with line/column, schema errors with key path and line. */
export function parsePolicyToml(text: string, file: string = DEFAULT_FILE): PolicyParseResult {
  const res = parseTomlLocated(text);
  if (!res.ok) {
    const d: ConfigDiagnostic = {
      severity: 'error',
      code: 'toml_syntax',
      message: `${res.message} (line ${res.line}, column ${res.column})`,
      file,
      line: res.line,
      column: res.column,
    };
    return { ok: false, diagnostics: [d] };
  }
  // Integral floats (`60.0`) outside [hooks] stay floats in the canonical rendering.
  markTomlFloats(res.value, text, ['hooks']);
  return validate(res.value, new DiagnosticCollector(file, res.locator));
}

/** Validates the same content given as structured JSON; diagnostics carry JSON paths. */
export function validatePolicyObject(
  value: unknown,
  file: string = DEFAULT_FILE,
  locator?: Locator,
): PolicyParseResult {
  return validate(value, new DiagnosticCollector(file, locator));
}

/** Path of a hook handler inside a policy, for diagnostics. */
export function handlerPath(event: string, group: number, handler: number, key?: string): DocPath {
  const p: Array<string | number> = ['hooks', event, group, 'hooks', handler];
  if (key !== undefined) p.push(key);
  return p;
}
