// Zod schemas for query and path parameters: every value is checked here before it can reach SQL.
import { z } from 'zod';
import { LONE_SURROGATE } from './text';

/** Earliest and latest time a filter or cursor may name (PostgreSQL and JS dates both handle the whole range,
 *  with margin for time-zone offsets and bucket rounding). */
export const MIN_TIME_MS = Date.UTC(1970, 0, 1);
export const MAX_TIME_MS = Date.UTC(9000, 0, 1);

/** Page sizes: every cursor-paginated list takes `limit` 1..MAX_LIMIT, DEFAULT_LIMIT when absent. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Control characters (C0, DEL, C1): never part of a filter value. */
const CONTROL = /\p{Cc}/u;

// A text filter value: 1..max characters of well-formed Unicode without control characters (NUL included).
export function queryText(max = 200) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !CONTROL.test(s), 'must not contain control characters')
    .refine((s) => !LONE_SURROGATE.test(s), 'must be well-formed Unicode');
}

// A comma-separated list of text values (each checked like queryText), at most `maxItems` of them.
export function queryTextList(maxItems = 20, max = 200) {
  return queryText(max * maxItems)
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().max(max)).min(1, 'must name at least one value').max(maxItems));
}

// An ISO 8601 time with offset between 1970 and 9000, normalised to UTC (`…Z`).
export function isoTime() {
  return z.iso
    .datetime({ offset: true })
    .refine((s) => {
      const ms = Date.parse(s);
      return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms < MAX_TIME_MS;
    }, 'must be a time between 1970-01-01 and 9000-01-01')
    .transform((s) => new Date(Date.parse(s)).toISOString());
}

// A page size: an integer 1..max (default `def`).
export function limitParam(def = DEFAULT_LIMIT, max = MAX_LIMIT) {
  return z.coerce.number().int().min(1).max(max).default(def).describe(`Page size (1–${max}, default ${def})`);
}

// A boolean flag given as true or false.
export function boolParam() {
  return z.enum(['true', 'false']).transform((v) => v === 'true');
}

/** Longest `cursor` value accepted by the query schema (the codec refuses anything it did not issue). */
export const MAX_CURSOR_LENGTH_PARAM = 512;

/** The `cursor` query parameter of every list. */
export const cursorParam = () =>
  z
    .string()
    .max(MAX_CURSOR_LENGTH_PARAM)
    .optional()
    .describe('Opaque cursor: the nextCursor of the previous page, unchanged');

/** A UUID path or query parameter (any version; PostgreSQL's uuid syntax). */
export const uuidParam = () => z.guid();
