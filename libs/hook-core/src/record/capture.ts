// Output capture settings for run records (none, digests, or redacted bounded excerpts): the one schema the API
// stores per group, the agent caches and passes to the engine, and the engine applies. Redaction patterns are RE2
// (the engine's linear-time compiler), and every text is bounded before it is redacted.
import { z } from 'zod';
import { compileLinearRegex, regexError, type LinearRegex } from '../match/regex';
import { canonicalJson } from '../trust/canonical-json';
import { sha256Hex } from './canonical';
import type { OutputCapture, ToolCall } from './schema';

/** What records keep of hook output. */
export const CAPTURE_MODES = ['none', 'digests', 'excerpts'] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

/** Largest excerpt bound an admin may set (bytes). */
export const MAX_EXCERPT_BYTES_LIMIT = 65_536;
/** Most extra redaction patterns, and the longest one (characters). */
export const MAX_REDACT_PATTERNS = 100;
export const MAX_REDACT_PATTERN_CHARS = 500;

/** The capture settings (a group's audit settings): mode, excerpt bound, extra patterns, default patterns on/off. */
export const captureSettingsSchema = z.object({
  capture: z
    .enum(CAPTURE_MODES)
    .describe('none: no output; digests: sha256 only; excerpts: bounded excerpts, redacted, plus digests'),
  maxExcerptBytes: z.number().int().min(0).max(MAX_EXCERPT_BYTES_LIMIT),
  redactPatterns: z
    .array(
      z
        .string()
        .min(1)
        .max(MAX_REDACT_PATTERN_CHARS)
        .refine((s) => redactPatternError(s) === null, 'not a valid regular expression (RE2 syntax)'),
    )
    .max(MAX_REDACT_PATTERNS)
    .describe('extra regular expressions (RE2 syntax) whose matches are replaced by [REDACTED]'),
  useDefaultRedact: z.boolean().describe('also apply the built-in secret and token patterns'),
  inventoryCommands: z
    .enum(['verbatim', 'program', 'hash', 'none'])
    .default('program')
    .describe(
      'what hook inventories report of commands: verbatim (redacted), program (first word + sha256), hash (sha256 only), none',
    ),
});
export type CaptureSettings = z.infer<typeof captureSettingsSchema>;

/** Default capture (used until a group's settings are known): digests plus 2 KiB excerpts, default redactions. */
export const DEFAULT_CAPTURE_SETTINGS: Readonly<CaptureSettings> = {
  capture: 'excerpts',
  maxExcerptBytes: 2048,
  redactPatterns: [],
  useDefaultRedact: true,
  inventoryCommands: 'program',
};

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
  const patterns: LinearRegex[] = [];
  const invalid: { pattern: string; error: string }[] = [];
  for (const src of sources) {
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
