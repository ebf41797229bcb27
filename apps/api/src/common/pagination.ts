// Cursor pagination shared by every list: opaque base64url keyset cursors, `limit` 1–200, `{ items, nextCursor }`.
import { z } from 'zod';
import { ApiError } from './api-error';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Query parameters every list accepts. */
export const paginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe('Page size (1–200)'),
  cursor: z.string().max(1000).optional().describe('Opaque cursor from the previous page'),
});

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

// Encodes a keyset position as an opaque cursor.
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

// Decodes a cursor against the keyset shape this list uses; 400 naming `cursor` when it is not one of ours.
export function decodeCursor<T extends z.ZodType>(cursor: string | undefined, shape: T): z.infer<T> | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw badCursor();
  return parsed.data;
}

function badCursor(): ApiError {
  return new ApiError('validation_failed', 'Invalid cursor: pass the nextCursor of a previous page unchanged', [
    { path: '$.cursor', message: 'not a cursor of this list', code: 'invalid_cursor' },
  ]);
}

/** Keyset position on (createdAt, id). */
export const createdAtIdKey = z.object({ t: z.iso.datetime(), id: z.uuid() });
export type CreatedAtIdKey = z.infer<typeof createdAtIdKey>;

// Turns `limit + 1` fetched rows into a page; `keyOf` gives the cursor key of the last row shown.
export function toPage<R, T>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
  keyOf: (row: R) => Record<string, string | number>,
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return { items: shown.map(map), nextCursor: more && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

// Prisma `where` for "after this (createdAt, id) position" in descending order.
export function afterCreatedAtId(after: CreatedAtIdKey | undefined) {
  if (!after) return {};
  const t = new Date(after.t);
  return { OR: [{ createdAt: { lt: t } }, { createdAt: t, id: { lt: after.id } }] };
}
