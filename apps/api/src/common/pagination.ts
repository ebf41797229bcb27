// Cursor pagination shared by every list: signed keyset cursors (cursor.ts), `limit` 1–200, `{ items, nextCursor }`.
import { z } from 'zod';
import { type CursorCodec, timeIdKey, type TimeIdKey } from './cursor';
import { DEFAULT_LIMIT, limitParam, MAX_CURSOR_LENGTH_PARAM } from './query';

export { DEFAULT_LIMIT, MAX_LIMIT } from './query';
export { cursorCodec, type CursorCodec } from './cursor';

/** The `cursor` query parameter of every list. */
export const cursorParam = () =>
  z
    .string()
    .max(MAX_CURSOR_LENGTH_PARAM)
    .optional()
    .describe('Opaque cursor: the nextCursor of the previous page, unchanged');

/** Query parameters every list accepts. */
export const paginationQuerySchema = z.object({ limit: limitParam(DEFAULT_LIMIT), cursor: cursorParam() });

// Builds the response schema `{ items, nextCursor }` for an item schema.
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page'),
  });
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Keyset position on (createdAt, id). */
export const createdAtIdKey = timeIdKey;
export type CreatedAtIdKey = TimeIdKey;

// Turns `limit + 1` fetched rows into a page; `keyOf` gives the cursor position of the last row shown.
export function toPage<R, T, K>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
  keyOf: (row: R) => K,
  cursors: CursorCodec<K>,
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return { items: shown.map(map), nextCursor: more && last !== undefined ? cursors.encode(keyOf(last)) : null };
}

// Prisma `where` for "after this (createdAt, id) position" in descending order.
export function afterCreatedAtId(after: CreatedAtIdKey | undefined) {
  if (!after) return {};
  const t = new Date(after.t);
  return { OR: [{ createdAt: { lt: t } }, { createdAt: t, id: { lt: after.id } }] };
}
