// Zod helpers for user-supplied text that PostgreSQL must store (no NUL characters).
import { z } from 'zod';

// A trimmed single-line name without control characters.
export function nameText(max = 200) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');
}

// Free text (descriptions, messages) without NUL characters.
export function freeText(max = 10_000) {
  return z
    .string()
    .max(max)
    .regex(/^[^\u0000]*$/, 'must not contain NUL characters');
}
