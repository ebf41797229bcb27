// The one cursor codec of the API: keyset positions as signed, strictly typed, opaque strings.
// Format: base64url(JSON of the position) "." base64url(first 16 bytes of HMAC-SHA256(secret, list name + JSON)).
// A cursor is refused (400 naming `cursor`) unless this server signed it for this list and its position parses
// with the list's zod shape, so nothing an outsider crafts reaches SQL.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from './api-error';
import { isoTime, MAX_CURSOR_LENGTH_PARAM as MAX_CURSOR_LENGTH } from './query';

const CURSOR = /^[A-Za-z0-9_-]{1,480}\.[A-Za-z0-9_-]{22}$/;

// The MAC key for a configured secret (none: a built-in key, the same on every instance; the strict shapes still
// guard every position).
function keyOf(value: string | undefined): Buffer {
  return createHash('sha256')
    .update('hookwarden-cursor-v1\0')
    .update(value ?? '')
    .digest();
}

let secret = keyOf(undefined);

// Sets the signing secret (HOOKWARDEN_CURSOR_SECRET; every instance behind one load balancer needs the same one).
export function setCursorSecret(value: string | undefined): void {
  secret = keyOf(value);
}

// The truncated MAC of a payload for a list.
function mac(list: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(list).update('\0').update(payload).digest().subarray(0, 16);
}

// A signed cursor for a position of `list`.
export function signCursor(list: string, position: unknown): string {
  const payload = JSON.stringify(position);
  return `${Buffer.from(payload, 'utf8').toString('base64url')}.${mac(list, payload).toString('base64url')}`;
}

// The position of a cursor this server issued for `list`; undefined for none; 400 for anything else.
export function verifyCursor<S extends z.ZodType>(
  list: string,
  cursor: string | undefined | null,
  shape: S,
): z.infer<S> | undefined {
  if (cursor === undefined || cursor === null || cursor === '') return undefined;
  if (cursor.length > MAX_CURSOR_LENGTH || !CURSOR.test(cursor)) throw badCursor('not a cursor of this API');
  const dot = cursor.indexOf('.');
  const payload = Buffer.from(cursor.slice(0, dot), 'base64url').toString('utf8');
  const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const expected = mac(list, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw badCursor('not a cursor this server issued for this list');
  }
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw badCursor('not a cursor of this API');
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw badCursor('not a cursor of this list');
  return parsed.data;
}

// The 400 for a cursor this server did not issue.
function badCursor(why: string): ApiError {
  return new ApiError('validation_failed', 'Invalid cursor: pass the nextCursor of a previous page unchanged', [
    { path: '$.cursor', in: 'query', message: why, code: 'invalid_cursor' },
  ]);
}

/** Keyset position on (time, id): `t` an ISO time in the supported range, `id` a UUID. */
export const timeIdKey = z.object({ t: isoTime(), id: z.guid() }).strict();
export type TimeIdKey = z.infer<typeof timeIdKey>;
