// Agent request signatures, RFC 9421-shaped: every agent request carries `Content-Digest` (RFC 9530, SHA-256 of the
// body bytes as sent) and one signature `hw` over method, path, query and that digest, with a created time, a nonce,
// the key id (a session id for HMAC, the endpoint key id for Ed25519) and the algorithm. One contract for the agent
// (signs) and the API (parses strictly, rebuilds the base, verifies).
import { createHash, createHmac, type KeyObject, randomBytes, sign, timingSafeEqual, verify } from 'node:crypto';

/** The one signature label. */
export const SIGNATURE_LABEL = 'hw';
/** The covered components, in this order. */
export const SIGNATURE_COMPONENTS = ['@method', '@path', '@query', 'content-digest'] as const;
/** How far a signature's `created` may be from the server's clock, either way (seconds). */
export const MAX_CLOCK_SKEW_SEC = 300;
/** Longest Signature-Input / Signature header accepted. */
export const MAX_SIGNATURE_HEADER_CHARS = 1024;

export type SignatureAlg = 'hmac-sha256' | 'ed25519';

/** The parameters of a signature (what Signature-Input says besides the components). */
export interface SignatureParams {
  created: number;
  nonce: string;
  keyid: string;
  alg: SignatureAlg;
}

/** A parsed signature: its parameters, the exact `@signature-params` text and the signature bytes. */
export interface ParsedSignature extends SignatureParams {
  paramsText: string;
  signature: Buffer;
}

/** What a request is signed over. */
export interface SignedRequestParts {
  method: string;
  /** The path as sent (percent-encoded), without the query. */
  path: string;
  /** The query without `?` ('' when none). */
  query: string;
  contentDigest: string;
}

const COMPONENTS_TEXT = `(${SIGNATURE_COMPONENTS.map((c) => `"${c}"`).join(' ')})`;
const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const KEYID = /^[A-Za-z0-9._:-]{1,256}$/;
const CREATED = /^\d{1,12}$/;
const PARAM = /^(created|nonce|keyid|alg)=(?:"([^"\\]*)"|(\d{1,12}))$/;
const SIGNATURE_VALUE = /^hw=:([A-Za-z0-9+/]{1,200}={0,2}):$/;
const DIGEST_VALUE = /^sha-256=:([A-Za-z0-9+/]{43}=):$/;
/** The exact form signRequest writes (the fast path; any other order goes through the general parser). Linear: every
 *  class excludes the delimiter that ends it. */
const CANONICAL =
  /^hw=\("@method" "@path" "@query" "content-digest"\);created=(\d{1,12});nonce="([A-Za-z0-9_-]{16,64})";keyid="([A-Za-z0-9._:-]{1,256})";alg="(hmac-sha256|ed25519)"$/;

// The Content-Digest header value of a body: `sha-256=:<base64>:`.
export function contentDigest(body?: Uint8Array | string | null): string {
  const hash = createHash('sha256');
  if (body !== undefined && body !== null) hash.update(body);
  return `sha-256=:${hash.digest('base64')}:`;
}

// The digest a Content-Digest header value names (sha-256 only), or null when it is not exactly that.
export function parseContentDigest(header: string | string[] | undefined): Buffer | null {
  if (typeof header !== 'string' || header.length > 100) return null;
  const m = DIGEST_VALUE.exec(header.trim());
  return m ? Buffer.from(m[1]!, 'base64') : null;
}

// The `@signature-params` text of a signature's parameters (the value of Signature-Input after `hw=`).
export function signatureParamsText(p: SignatureParams): string {
  return `${COMPONENTS_TEXT};created=${p.created};nonce="${p.nonce}";keyid="${p.keyid}";alg="${p.alg}"`;
}

// The RFC 9421 signature base of a request and its parameters text.
export function signatureBase(parts: SignedRequestParts, paramsText: string): string {
  return (
    `"@method": ${parts.method.toUpperCase()}\n` +
    `"@path": ${parts.path}\n` +
    `"@query": ?${parts.query}\n` +
    `"content-digest": ${parts.contentDigest}\n` +
    `"@signature-params": ${paramsText}`
  );
}

// Splits a request target (`/path?query`) into path and query.
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf('?');
  return q === -1 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** Why a signature header pair does not parse (the message names the header and the problem). */
export type SignatureParseResult =
  { ok: true; value: ParsedSignature } | { ok: false; missing: boolean; message: string };

// Parses Signature-Input and Signature strictly: label `hw`, exactly the covered components, each parameter once.
// Linear: bounded length, anchored regexes with single character classes.
export function parseSignatureHeaders(
  input: string | string[] | undefined,
  signature: string | string[] | undefined,
): SignatureParseResult {
  if (input === undefined && signature === undefined) {
    return { ok: false, missing: true, message: 'Signature-Input and Signature headers are required' };
  }
  const bad = (message: string): SignatureParseResult => ({ ok: false, missing: false, message });
  if (typeof input !== 'string') return bad('Signature-Input must be present exactly once');
  if (typeof signature !== 'string') return bad('Signature must be present exactly once');
  if (input.length > MAX_SIGNATURE_HEADER_CHARS || signature.length > MAX_SIGNATURE_HEADER_CHARS) {
    return bad(`Signature headers are limited to ${MAX_SIGNATURE_HEADER_CHARS} characters`);
  }
  const fast = CANONICAL.exec(input);
  if (fast) {
    const sm = SIGNATURE_VALUE.exec(signature.trim());
    if (!sm) return bad('Signature must be hw=:<base64>:');
    return {
      ok: true,
      value: {
        created: Number(fast[1]),
        nonce: fast[2]!,
        keyid: fast[3]!,
        alg: fast[4] as SignatureAlg,
        paramsText: input.slice(SIGNATURE_LABEL.length + 1),
        signature: Buffer.from(sm[1]!, 'base64'),
      },
    };
  }
  const head = `${SIGNATURE_LABEL}=${COMPONENTS_TEXT};`;
  if (!input.startsWith(head)) {
    return bad(`Signature-Input must start with ${head} (label hw, components ${COMPONENTS_TEXT})`);
  }
  const paramsText = input.slice(SIGNATURE_LABEL.length + 1);
  const found: Partial<Record<'created' | 'nonce' | 'keyid' | 'alg', string>> = {};
  for (const part of input.slice(head.length).split(';')) {
    const m = PARAM.exec(part);
    if (!m) return bad(`Signature-Input parameter "${part.slice(0, 40)}" is not name="value" or created=<integer>`);
    const name = m[1] as keyof typeof found;
    if (found[name] !== undefined) return bad(`Signature-Input parameter ${name} appears twice`);
    const quoted = m[2];
    if ((name === 'created') !== (quoted === undefined)) {
      return bad(`Signature-Input parameter ${name} must be ${name === 'created' ? 'an integer' : 'a quoted string'}`);
    }
    found[name] = quoted ?? m[3]!;
  }
  if (found.created === undefined || !CREATED.test(found.created))
    return bad('Signature-Input needs created=<unix seconds>');
  if (found.nonce === undefined || !NONCE.test(found.nonce)) {
    return bad('Signature-Input needs nonce="…" of 16 to 64 characters [A-Za-z0-9_-]');
  }
  if (found.keyid === undefined || !KEYID.test(found.keyid)) return bad('Signature-Input needs keyid="…"');
  if (found.alg !== 'hmac-sha256' && found.alg !== 'ed25519') {
    return bad('Signature-Input needs alg="hmac-sha256" or alg="ed25519"');
  }
  const sm = SIGNATURE_VALUE.exec(signature.trim());
  if (!sm) return bad('Signature must be hw=:<base64>:');
  return {
    ok: true,
    value: {
      created: Number(found.created),
      nonce: found.nonce,
      keyid: found.keyid,
      alg: found.alg,
      paramsText,
      signature: Buffer.from(sm[1]!, 'base64'),
    },
  };
}

/** A key that signs requests: a session's HMAC key, or the endpoint's own Ed25519 private key. */
export type RequestSigningKey =
  { alg: 'hmac-sha256'; keyid: string; secret: Buffer } | { alg: 'ed25519'; keyid: string; privateKey: KeyObject };

// A fresh nonce (128 random bits, base64url).
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

// The headers that sign a request: Content-Digest, Signature-Input, Signature.
export function signRequest(
  request: { method: string; target: string; body?: Uint8Array | string | null },
  key: RequestSigningKey,
  now = Date.now(),
  nonce = newNonce(),
): { 'content-digest': string; 'signature-input': string; signature: string } {
  const digest = contentDigest(request.body);
  const paramsText = signatureParamsText({ created: Math.floor(now / 1000), nonce, keyid: key.keyid, alg: key.alg });
  const base = Buffer.from(
    signatureBase({ method: request.method, ...splitTarget(request.target), contentDigest: digest }, paramsText),
    'utf8',
  );
  const sig =
    key.alg === 'hmac-sha256'
      ? createHmac('sha256', key.secret).update(base).digest()
      : sign(null, base, key.privateKey);
  return {
    'content-digest': digest,
    'signature-input': `${SIGNATURE_LABEL}=${paramsText}`,
    signature: `${SIGNATURE_LABEL}=:${sig.toString('base64')}:`,
  };
}

// True when `parsed` is a valid signature of `base` under the HMAC key (constant-time compare).
export function verifyHmacSignature(parsed: ParsedSignature, base: string, secret: Buffer | KeyObject): boolean {
  const expected = createHmac('sha256', secret).update(base, 'utf8').digest();
  return parsed.signature.length === expected.length && timingSafeEqual(parsed.signature, expected);
}

// True when `parsed` is a valid Ed25519 signature of `base` by the public key.
export function verifyEd25519Signature(parsed: ParsedSignature, base: string, publicKey: KeyObject): boolean {
  if (parsed.signature.length !== 64) return false;
  try {
    return verify(null, Buffer.from(base, 'utf8'), publicKey, parsed.signature);
  } catch {
    return false;
  }
}
