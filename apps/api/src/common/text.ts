// Zod helpers for user-supplied text that PostgreSQL must store (no NUL characters).
import { z } from 'zod';

// A trimmed single-line name without control characters.
export function nameText(max = 200) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
    .refine(isStorableText, 'must be well-formed Unicode');
}

// Free text (descriptions, messages) without NUL characters.
export function freeText(max = 10_000) {
  return z.string().max(max).refine(isStorableText, 'must be well-formed Unicode without NUL characters');
}

/** A UTF-16 surrogate half without its partner (cannot be stored as UTF-8 or in jsonb). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// True when PostgreSQL can store the string unchanged (no NUL, no lone surrogate).
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}
