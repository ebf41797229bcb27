// sha256 and random ids for the per-event path (canonical JSON comes from trust/canonical-json). A hook event is a
// short process: loading node:crypto costs it more than hashing its few small texts, so inputs up to
// SMALL_INPUT_BYTES are hashed here in JavaScript and larger ones (a hook's full output, a managed file) by node:crypto,
// loaded on first use. A process that already loaded node:crypto, or has hashed JS_BUDGET_BYTES in JavaScript (a
// server ingesting records, a daemon), hashes everything natively from then on: the JavaScript rounds are ~10× slower
// per byte and only pay for themselves while they spare the load. Both give the same digest (the tests compare them on
// the FIPS 180-4 vectors and random data).
import { closeSync, openSync, readSync } from 'node:fs';

/** Largest input hashed without node:crypto. */
export const SMALL_INPUT_BYTES = 16 * 1024;
/** Bytes a process hashes in JavaScript before it loads node:crypto for good (a hook event hashes a few KB). */
export const JS_BUDGET_BYTES = 256 * 1024;

/** node:crypto, loaded on first use. */
function crypto(): typeof import('node:crypto') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:crypto') as typeof import('node:crypto');
}

/** Bytes hashed in JavaScript so far; Infinity once hashing is native. */
let jsBytes = 0;

/** True when node:crypto is loaded in this process already (nothing is saved by not using it). */
function cryptoLoaded(): boolean {
  const list = (process as { moduleLoadList?: readonly string[] }).moduleLoadList;
  return list !== undefined && list.includes('NativeModule crypto');
}

/** True when an input of `bytes` is hashed in JavaScript (counted against the process's budget). */
function hashInJs(bytes: number): boolean {
  if (bytes > SMALL_INPUT_BYTES || jsBytes === Infinity) return false;
  if (jsBytes === 0 && cryptoLoaded()) {
    jsBytes = Infinity;
    return false;
  }
  jsBytes += bytes;
  if (jsBytes > JS_BUDGET_BYTES) jsBytes = Infinity;
  return true;
}

/** sha256 hex of a string (hashed as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  // A string of n UTF-16 units is at most 3n UTF-8 bytes.
  if (hashInJs(typeof data === 'string' ? data.length * 3 : data.byteLength))
    return sha256Small(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  return crypto().createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 round constants (FIPS 180-4 §4.2.2). */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 of a small input in JavaScript (FIPS 180-4), as lowercase hex. */
export function sha256Small(bytes: Uint8Array): string {
  const n = bytes.byteLength;
  // Message + 0x80 + zero padding + 64-bit big-endian bit length, in whole 64-byte blocks.
  const padded = new Uint8Array(((n + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[n] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(n / 0x20000000));
  view.setUint32(padded.length - 4, (n << 3) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let a = h[0]!;
    let b = h[1]!;
    let c = h[2]!;
    let d = h[3]!;
    let e = h[4]!;
    let f = h[5]!;
    let g = h[6]!;
    let k = h[7]!;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
    h[5] = (h[5]! + f) >>> 0;
    h[6] = (h[6]! + g) >>> 0;
    h[7] = (h[7]! + k) >>> 0;
  }
  let hex = '';
  for (let i = 0; i < 8; i++) hex += h[i]!.toString(16).padStart(8, '0');
  return hex;
}

/**
 * `n` random bytes from the operating system: /dev/urandom where there is one (no node:crypto to load), else
 * node:crypto's randomBytes. Never cached or pooled, so processes started from one V8 startup snapshot never share
 * values.
 */
export function osRandomBytes(n: number): Buffer {
  if (process.platform !== 'win32') {
    let fd: number | undefined;
    try {
      fd = openSync('/dev/urandom', 'r');
      const out = Buffer.alloc(n);
      let off = 0;
      while (off < n) {
        const got = readSync(fd, out, off, n - off, null);
        if (got <= 0) throw new Error('short read');
        off += got;
      }
      return out;
    } catch {
      // no /dev/urandom here (a container without /dev, a sandbox): node:crypto below
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return crypto().randomBytes(n);
}

/** A random (version 4) UUID, as crypto.randomUUID makes one, from osRandomBytes. */
export function randomUuid(): string {
  const b = osRandomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
