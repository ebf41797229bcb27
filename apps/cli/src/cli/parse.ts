// Parsers of option values (durations, numbers, lists, modes), each failing with the option's name.
import { CliError } from './errors';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

// Seconds from `90`, `90s`, `30m`, `2h`, `1d` or combinations like `1h30m`.
export function parseDuration(text: string, what: string): number {
  const t = text.trim();
  if (/^\d{1,9}$/.test(t)) return Number(t);
  const re = /(\d{1,9})([smhd])/g;
  let total = 0;
  let consumed = 0;
  for (const m of t.matchAll(re)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * UNITS[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed !== t.length || consumed === 0) {
    throw new CliError(`${what}: invalid duration ${JSON.stringify(text)} (e.g. 90s, 30m, 2h, 1d)`);
  }
  return total;
}

// An integer within [min, max].
export function parseIntIn(text: string, what: string, min: number, max: number): number {
  if (!/^-?\d{1,15}$/.test(text.trim()))
    throw new CliError(`${what}: expected an integer, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (n < min || n > max) throw new CliError(`${what}: ${n} is outside ${min}..${max}`);
  return n;
}

// A ratio in [0, 1] (also accepts percentages like `5%`).
export function parseRate(text: string, what: string): number {
  const t = text.trim();
  const pct = t.endsWith('%');
  const n = Number(pct ? t.slice(0, -1) : t);
  const v = pct ? n / 100 : n;
  if (t === '' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new CliError(`${what}: expected a ratio 0..1 or a percentage, got ${JSON.stringify(text)}`);
  }
  return v;
}

// Comma-separated ring percentages, e.g. `5,25,100`.
export function parseRings(text: string, what: string): number[] {
  return text.split(',').map((s) => parseIntIn(s, what, 1, 100));
}

// An ISO 8601 date-time (kept as given once it parses).
export function parseIsoTime(text: string, what: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new CliError(`${what}: expected an ISO 8601 time like 2026-12-01T00:00:00Z, got ${JSON.stringify(text)}`);
  }
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// True for a UUID (ids), false for names.
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
