// Output capture settings for run records (none, digests, or redacted bounded excerpts): the one schema the API
// stores per group, the agent caches and passes to the engine, and the engine applies. Redaction patterns are RE2
// (the engine's linear-time compiler), and every text is bounded before it is redacted.
import { compileLinearRegex, regexError, type LinearRegex } from '../match/regex';
import { canonicalJson } from '../trust/canonical-json';
import { sha256Hex } from './canonical';
import type { OutputCapture, ToolCall } from './schema';
import type { CaptureSettings } from './capture-schema';
import { CAPTURE_MODES, type CaptureMode, MAX_EXCERPT_BYTES_LIMIT } from './capture-limits';

export {
  CAPTURE_MODES,
  type CaptureMode,
  MAX_EXCERPT_BYTES_LIMIT,
  MAX_REDACT_PATTERNS,
  MAX_REDACT_PATTERN_CHARS,
} from './capture-limits';

/** Default capture (used until a group's settings are known): digests plus 2 KiB excerpts, default redactions. */
export const DEFAULT_CAPTURE_SETTINGS: Readonly<CaptureSettings> = {
  capture: 'excerpts',
  maxExcerptBytes: 2048,
  redactPatterns: [],
  useDefaultRedact: true,
  inventoryCommands: 'program',
};

const INVENTORY_COMMANDS: ReadonlySet<unknown> = new Set(['verbatim', 'program', 'hash', 'none']);

/**
 * `captureSettingsSchema.safeParse(raw)`'s data, or undefined when it fails: settings that are plainly valid (no
 * extra pattern to compile) are read without zod, built as the schema builds them (its keys, in its order, the
 * inventory default filled in); anything else goes to the schema. The agent reads its cached copy on every event.
 */
export function parseCaptureSettings(raw: unknown): CaptureSettings | undefined {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const v = raw as Record<string, unknown>;
    const bytes = v['maxExcerptBytes'];
    const inventory = v['inventoryCommands'] ?? 'program';
    if (
      (CAPTURE_MODES as readonly unknown[]).includes(v['capture']) &&
      typeof bytes === 'number' &&
      Number.isInteger(bytes) &&
      bytes >= 0 &&
      bytes <= MAX_EXCERPT_BYTES_LIMIT &&
      Array.isArray(v['redactPatterns']) &&
      v['redactPatterns'].length === 0 &&
      typeof v['useDefaultRedact'] === 'boolean' &&
      INVENTORY_COMMANDS.has(inventory)
    )
      return {
        capture: v['capture'] as CaptureMode,
        maxExcerptBytes: bytes,
        redactPatterns: [],
        useDefaultRedact: v['useDefaultRedact'],
        inventoryCommands: inventory as CaptureSettings['inventoryCommands'],
      };
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- zod loads only for settings it must judge
  const parsed = (require('./capture-schema') as typeof import('./capture-schema')).captureSettingsSchema.safeParse(
    raw,
  );
  return parsed.success ? parsed.data : undefined;
}

/** Why a redaction pattern does not compile with the engine's compiler (RE2 syntax), or null when it does. */
export function redactPatternError(source: string): string | null {
  return regexError(source) ?? null;
}

/** Secrets and tokens redacted from excerpts, reasons and errors by default. */
export const DEFAULT_REDACTIONS: readonly string[] = [
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
  String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b`,
  String.raw`(?i:aws_?secret_?access_?key)\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}\b`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}\b`,
  String.raw`\bglpat-[A-Za-z0-9_-]{20,}\b`,
  String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
  String.raw`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`,
  String.raw`\bAIza[0-9A-Za-z_-]{35}\b`,
  String.raw`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  String.raw`(?i:\bbearer)\s+[A-Za-z0-9._~+/=-]{8,}`,
  String.raw`(?i:\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret))\s*[=:]\s*(?:"[^"]*"|'[^']*'|[^\s&;,]+)`,
  String.raw`(?i:[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+@`,
];

/**
 * For each default pattern (same order), a literal every match of it contains. A text in which none is found (and
 * that is ASCII, where case folding is plain) cannot match the pattern, so RE2 is not loaded to look: most hook
 * events carry no secret-like text. `redaction-hints.test.ts` holds each hint against its pattern.
 */
export const DEFAULT_REDACTION_HINTS: readonly RegExp[] = [
  /-----BEGIN /,
  /AKIA|ASIA|AGPA|AIDA|AROA|ANPA/,
  /aws_?secret_?access_?key/i,
  /gh[pousr]_/,
  /github_pat_/,
  /glpat-/,
  /xox[abposr]-/,
  /sk-/,
  /AIza/,
  /eyJ/,
  /bearer/i,
  /password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key/i,
  /:\/\//,
];
const NON_ASCII = /[^\x00-\x7f]/;

// A default pattern compiled on first use, and only for a text its hint finds.
function hintedRegex(source: string, hint: RegExp): LinearRegex {
  let re: LinearRegex | undefined;
  const compiled = (): LinearRegex => {
    if (re) return re;
    const c = compileLinearRegex(source);
    if (!c.ok) throw new Error(`default redaction pattern does not compile: ${c.error}`);
    return (re = c.regex);
  };
  const may = (text: string): boolean => hint.test(text) || NON_ASCII.test(text);
  return {
    source,
    test: (text) => may(text) && compiled().test(text),
    replaceAll: (text, replacement) => (may(text) ? compiled().replaceAll(text, replacement) : text),
  };
}
const DEFAULT_PATTERNS: readonly LinearRegex[] = DEFAULT_REDACTIONS.map((src, i) =>
  hintedRegex(src, DEFAULT_REDACTION_HINTS[i]!),
);

/** Marker replacing a redacted secret. */
export const REDACTED = '[REDACTED]';

/** Bytes past the excerpt bound that are redacted too, so a secret cut by the bound is still caught whole. */
export const REDACT_MARGIN_BYTES = 4096;
/** Bound of a record's `error` text in bytes. */
export const MAX_ERROR_BYTES = 2048;

/** Redaction patterns compiled by the engine's linear-time compiler, and the ones that did not compile. */
export interface CompiledRedactions {
  patterns: readonly LinearRegex[];
  invalid: readonly { pattern: string; error: string }[];
}

const compiled = new Map<string, CompiledRedactions>();

/** Compile redaction patterns (cached per list) with the engine's RE2 compiler; the ones that do not compile are listed. */
export function compileRedactions(
  settings: Pick<CaptureSettings, 'redactPatterns' | 'useDefaultRedact'>,
): CompiledRedactions {
  const sources = [...(settings.useDefaultRedact ? DEFAULT_REDACTIONS : []), ...settings.redactPatterns];
  const key = sources.join('\u0000');
  const hit = compiled.get(key);
  if (hit) return hit;
  // The defaults compile (a test holds it): they are compiled when a text needs them.
  const patterns: LinearRegex[] = settings.useDefaultRedact ? [...DEFAULT_PATTERNS] : [];
  const invalid: { pattern: string; error: string }[] = [];
  for (const src of settings.redactPatterns) {
    const c = compileLinearRegex(src);
    if (c.ok) patterns.push(c.regex);
    else invalid.push({ pattern: src, error: c.error });
  }
  const result = { patterns, invalid };
  if (compiled.size < 64) compiled.set(key, result);
  return result;
}

/** Apply redactions to a text (linear time in its length per pattern). */
export function redactText(text: string, patterns: readonly LinearRegex[]): string {
  let out = text;
  for (const re of patterns) out = re.replaceAll(out, REDACTED);
  return out;
}

/** The longest prefix of `buf` of at most `maxBytes` bytes that ends on a UTF-8 character boundary. */
function cutPoint(buf: Buffer, maxBytes: number): number {
  if (buf.length <= maxBytes) return buf.length;
  let end = maxBytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return end;
}

/** Cut a string to at most `maxBytes` UTF-8 bytes at a character boundary, marking the cut. */
export function boundBytes(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  const end = cutPoint(buf, maxBytes);
  return `${buf.subarray(0, end).toString('utf8')}…[${buf.length - end} bytes omitted]`;
}

/**
 * Redacted excerpt of at most `maxBytes` bytes: the text is first cut to `maxBytes` + REDACT_MARGIN_BYTES, redacted,
 * then bounded, so the cost is linear in the bound (not in the captured output) and a secret straddling the bound
 * is still redacted. The omitted count covers the redacted window's rest plus everything past the window.
 */
export function redactExcerpt(text: string, maxBytes: number, patterns: readonly LinearRegex[]): string {
  // A JavaScript string holds at most 3 UTF-8 bytes per UTF-16 unit: only long texts need the byte cut.
  const windowBytes = maxBytes + REDACT_MARGIN_BYTES;
  let window = text;
  let beyond = 0;
  if (text.length * 3 > windowBytes) {
    const buf = Buffer.from(text, 'utf8');
    const end = cutPoint(buf, windowBytes);
    if (end < buf.length) {
      window = buf.subarray(0, end).toString('utf8');
      beyond = buf.length - end;
    }
  }
  const red = Buffer.from(redactText(window, patterns), 'utf8');
  if (red.length <= maxBytes && beyond === 0) return red.toString('utf8');
  const end = cutPoint(red, maxBytes);
  return `${red.subarray(0, end).toString('utf8')}…[${red.length - end + beyond} bytes omitted]`;
}

/** Record view of one output stream under the capture settings (null with capture `none`). */
export function captureOutput(
  text: string,
  truncated: boolean,
  settings: Pick<CaptureSettings, 'capture' | 'maxExcerptBytes'>,
  patterns: readonly LinearRegex[],
): OutputCapture | null {
  if (settings.capture === 'none') return null;
  const cap: OutputCapture = { bytes: Buffer.byteLength(text, 'utf8'), truncated, sha256: sha256Hex(text) };
  if (settings.capture === 'excerpts' && text !== '')
    cap.excerpt = redactExcerpt(text, settings.maxExcerptBytes, patterns);
  return cap;
}

/** Tools whose input carries a shell command or patch in `tool_input.command`. */
const COMMAND_TOOLS = new Set(['Bash', 'apply_patch']);

/** Record view of a free text (reason, feedback): redacted bounded text (excerpts) and its sha256 (digests up). */
export function captureText(
  text: string | undefined,
  settings: Pick<CaptureSettings, 'capture' | 'maxExcerptBytes'>,
  patterns: readonly LinearRegex[],
): { text: string | null; sha256?: string } {
  if (text === undefined || settings.capture === 'none') return { text: null };
  const sha256 = sha256Hex(text);
  if (settings.capture === 'digests') return { text: null, sha256 };
  return { text: redactExcerpt(text, settings.maxExcerptBytes, patterns), sha256 };
}

/** Record view of the tool call a hook saw (null without a tool name or in mode `none`). */
export function captureToolCall(
  toolName: string | undefined,
  toolInput: unknown,
  settings: Pick<CaptureSettings, 'capture' | 'maxExcerptBytes'>,
  patterns: readonly LinearRegex[],
): ToolCall | null {
  if (toolName === undefined || settings.capture === 'none') return null;
  const call: ToolCall = { name: toolName };
  const inputJson = toolInput === undefined ? undefined : canonicalJson(toolInput);
  const command =
    COMMAND_TOOLS.has(toolName) &&
    toolInput !== null &&
    typeof toolInput === 'object' &&
    typeof (toolInput as { command?: unknown }).command === 'string'
      ? (toolInput as { command: string }).command
      : undefined;
  if (inputJson !== undefined) call.inputSha256 = sha256Hex(inputJson);
  if (command !== undefined) call.commandSha256 = sha256Hex(command);
  if (settings.capture === 'excerpts') {
    const max = settings.maxExcerptBytes;
    if (inputJson !== undefined) call.input = redactExcerpt(inputJson, max, patterns);
    if (command !== undefined) call.command = redactExcerpt(command, max, patterns);
  }
  return call;
}
