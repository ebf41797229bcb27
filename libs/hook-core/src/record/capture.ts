// Output capture policy for run records: none, digests, or redacted bounded excerpts.
import { canonicalJson } from '../trust/canonical-json';
import { sha256Hex } from './canonical';
import type { OutputCapture, ToolCall } from './schema';

/** What records keep of hook output. */
export interface CapturePolicy {
  mode: 'none' | 'digests' | 'excerpts';
  /** Excerpt bound in bytes (default 2048). */
  maxExcerptBytes?: number;
  /** Extra redaction regexes (JavaScript syntax, applied globally) on top of the defaults. */
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

const compiled = new Map<string, RegExp[]>();

/** Compile redaction patterns (cached per pattern list; inline `(?i:` groups are rewritten for JavaScript). */
export function compileRedactions(policy: CapturePolicy): RegExp[] {
  const sources = [...(policy.noDefaultRedactions ? [] : DEFAULT_REDACTIONS), ...(policy.redact ?? [])];
  const key = sources.join('\u0000');
  const hit = compiled.get(key);
  if (hit) return hit;
  const res = sources.map((src) => {
    // JavaScript lacks inline flag groups: `(?i:...)` becomes a case-insensitive whole pattern.
    const ci = src.includes('(?i:');
    return new RegExp(ci ? src.replace(/\(\?i:/g, '(?:') : src, ci ? 'gi' : 'g');
  });
  if (compiled.size < 64) compiled.set(key, res);
  return res;
}

/** Apply redactions to a text. */
export function redactText(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const re of patterns) out = out.replace(re, REDACTED);
  return out;
}

/** Cut a string to at most `maxBytes` UTF-8 bytes at a character boundary, marking the cut. */
export function boundBytes(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return `${buf.subarray(0, end).toString('utf8')}…[${buf.length - end} bytes omitted]`;
}

/** Record view of one output stream under a capture policy (null in mode `none`). */
export function captureOutput(
  text: string,
  truncated: boolean,
  policy: CapturePolicy,
  patterns: readonly RegExp[],
): OutputCapture | null {
  if (policy.mode === 'none') return null;
  const cap: OutputCapture = { bytes: Buffer.byteLength(text, 'utf8'), truncated, sha256: sha256Hex(text) };
  if (policy.mode === 'excerpts' && text !== '')
    cap.excerpt = boundBytes(redactText(text, patterns), policy.maxExcerptBytes ?? 2048);
  return cap;
}

/** Tools whose input carries a shell command or patch in `tool_input.command`. */
const COMMAND_TOOLS = new Set(['Bash', 'apply_patch']);

/** Record view of a free text (reason, feedback): redacted bounded text (excerpts) and its sha256 (digests up). */
export function captureText(
  text: string | undefined,
  policy: CapturePolicy,
  patterns: readonly RegExp[],
): { text: string | null; sha256?: string } {
  if (text === undefined || policy.mode === 'none') return { text: null };
  const sha256 = sha256Hex(text);
  if (policy.mode === 'digests') return { text: null, sha256 };
  return { text: boundBytes(redactText(text, patterns), policy.maxExcerptBytes ?? 2048), sha256 };
}

/** Record view of the tool call a hook saw (null without a tool name or in mode `none`). */
export function captureToolCall(
  toolName: string | undefined,
  toolInput: unknown,
  policy: CapturePolicy,
  patterns: readonly RegExp[],
): ToolCall | null {
  if (toolName === undefined || policy.mode === 'none') return null;
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
  if (policy.mode === 'excerpts') {
    const max = policy.maxExcerptBytes ?? 2048;
    if (inputJson !== undefined) call.input = boundBytes(redactText(inputJson, patterns), max);
    if (command !== undefined) call.command = boundBytes(redactText(command, patterns), max);
  }
  return call;
}
