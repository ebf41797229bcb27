// sha256 helper for the record chain (canonical JSON comes from trust/canonical-json).
import { createHash } from 'node:crypto';

/** sha256 hex of a string or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
