// Zod helpers for user-supplied text that PostgreSQL must store (no NUL characters).
import { isStorableText, LONE_SURROGATE } from '@hookwarden/hook-core';
import { z } from 'zod';

/** Whether PostgreSQL can store a string unchanged: hook-core's rule (the policy structure check uses it too). */
export { isStorableText, LONE_SURROGATE };

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
