// Output capture policy for run records: none, digests, or redacted bounded excerpts.
import { compileLinearRegex, regexError, type LinearRegex } from '../match/regex';
import { sha256Hex } from './canonical';
import type { OutputCapture } from './schema';

/** What records keep of hook output. */
export interface CapturePolicy {
  mode: 'none' | 'digests' | 'excerpts';
  /** Excerpt bound in bytes (default 2048). */
  maxExcerptBytes?: number;
  /** Extra redaction regexes (RE2 syntax, the engine's linear-time compiler; applied globally) on top of the defaults. */
  redact?: string[];
  /** Drop the default patterns (default false). */
  noDefaultRedactions?: boolean;
}

/** Default capture: digests plus 2 KiB redacted excerpts. */
export const DEFAULT_CAPTURE_POLICY: CapturePolicy = { mode: 'excerpts', maxExcerptBytes: 2048 };

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

/** Compile a policy's redaction patterns (cached per list) with the engine's RE2 compiler; invalid ones are listed. */
export function compileRedactions(policy: CapturePolicy): CompiledRedactions {
  const sources = [...(policy.noDefaultRedactions ? [] : DEFAULT_REDACTIONS), ...(policy.redact ?? [])];
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

/** Why a redaction pattern cannot be used by the engine, or undefined (validate before storing or passing one). */
export function redactPatternError(pattern: string): string | undefined {
  return regexError(pattern);
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

/** Record view of one output stream under a capture policy (null in mode `none`). */
export function captureOutput(
  text: string,
  truncated: boolean,
  policy: CapturePolicy,
  patterns: readonly LinearRegex[],
): OutputCapture | null {
  if (policy.mode === 'none') return null;
  const cap: OutputCapture = { bytes: Buffer.byteLength(text, 'utf8'), truncated, sha256: sha256Hex(text) };
  if (policy.mode === 'excerpts' && text !== '')
    cap.excerpt = redactExcerpt(text, policy.maxExcerptBytes ?? 2048, patterns);
  return cap;
}
