// Cursor pagination shared by every list: signed keyset cursors (cursor.ts), `limit` 1–200, `{ items, nextCursor }`.
import { z } from 'zod';
import { signCursor, timeIdKey, type TimeIdKey, verifyCursor } from './cursor';
import { cursorParam, DEFAULT_LIMIT, limitParam } from './query';

export { cursorParam, DEFAULT_LIMIT, MAX_LIMIT } from './query';

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

// Encodes a keyset position of list `list` as a signed opaque cursor (see cursor.ts).
export function encodeCursor(list: string, key: Record<string, string | number>): string {
  return signCursor(list, key);
}

// Decodes a cursor this server issued for `list` against the keyset shape the list uses; 400 naming `cursor`
// for anything else (another list's cursor, a tampered or crafted one, a position outside the shape).
export function decodeCursor<T extends z.ZodType>(
  list: string,
  cursor: string | undefined | null,
  shape: T,
): z.infer<T> | undefined {
  return verifyCursor(list, cursor, shape);
}

/** Keyset position on (createdAt, id). */
export const createdAtIdKey = timeIdKey;
export type CreatedAtIdKey = TimeIdKey;

// Turns `limit + 1` fetched rows of list `list` into a page; `keyOf` gives the cursor key of the last row shown.
export function toPage<R, T>(
  list: string,
  rows: R[],
  limit: number,
  map: (row: R) => T,
  keyOf: (row: R) => Record<string, string | number>,
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return { items: shown.map(map), nextCursor: more && last !== undefined ? encodeCursor(list, keyOf(last)) : null };
}

// Prisma `where` for "after this (createdAt, id) position" in descending order.
export function afterCreatedAtId(after: CreatedAtIdKey | undefined) {
  if (!after) return {};
  const t = new Date(after.t);
  return { OR: [{ createdAt: { lt: t } }, { createdAt: t, id: { lt: after.id } }] };
}
