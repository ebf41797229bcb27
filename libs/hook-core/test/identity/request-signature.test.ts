import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  contentDigest,
  newSessionEphemeral,
  openSessionKey,
  parseContentDigest,
  parseSignatureHeaders,
  sealSessionKey,
  signatureBase,
  signRequest,
  splitTarget,
  verifyEd25519Signature,
  verifyHmacSignature,
} from '../../src/identity';

// Parses the headers signRequest made and rebuilds the base of the request as a server would see it.
function check(headers: Record<string, string>, method: string, target: string, body?: string) {
  const parsed = parseSignatureHeaders(headers['signature-input'], headers.signature);
  if (!parsed.ok) throw new Error(parsed.message);
  const digest = contentDigest(body);
  const base = signatureBase({ method, ...splitTarget(target), contentDigest: digest }, parsed.value.paramsText);
  return { parsed: parsed.value, base, digestMatches: headers['content-digest'] === digest };
}

describe('request signatures', () => {
  const secret = randomBytes(32);
  const key = { alg: 'hmac-sha256' as const, keyid: 'hs1.session', secret };

  it('signs and verifies an HMAC signature over method, path, query and digest', () => {
    const h = signRequest({ method: 'POST', target: '/v1/agent/status?x=1', body: '{"a":1}' }, key, 1_800_000_000_000);
    expect(h['signature-input']).toMatch(
      /^hw=\("@method" "@path" "@query" "content-digest"\);created=1800000000;nonce="[A-Za-z0-9_-]{22}";keyid="hs1\.session";alg="hmac-sha256"$/,
    );
    const { parsed, base, digestMatches } = check(h, 'POST', '/v1/agent/status?x=1', '{"a":1}');
    expect(digestMatches).toBe(true);
    expect(parsed.created).toBe(1_800_000_000);
    expect(verifyHmacSignature(parsed, base, secret)).toBe(true);
    expect(base.split('\n')).toEqual([
      '"@method": POST',
      '"@path": /v1/agent/status',
      '"@query": ?x=1',
      `"content-digest": ${contentDigest('{"a":1}')}`,
      `"@signature-params": ${h['signature-input'].slice(3)}`,
    ]);
  });

  it('a changed path, query, method or key does not verify', () => {
    const h = signRequest({ method: 'GET', target: '/v1/agent/bundle' }, key);
    expect(
      verifyHmacSignature(check(h, 'GET', '/v1/agent/keys').parsed, check(h, 'GET', '/v1/agent/keys').base, secret),
    ).toBe(false);
    const q = check(h, 'GET', '/v1/agent/bundle?a=1');
    expect(verifyHmacSignature(q.parsed, q.base, secret)).toBe(false);
    const m = check(h, 'HEAD', '/v1/agent/bundle');
    expect(verifyHmacSignature(m.parsed, m.base, secret)).toBe(false);
    const ok = check(h, 'GET', '/v1/agent/bundle');
    expect(verifyHmacSignature(ok.parsed, ok.base, randomBytes(32))).toBe(false);
    expect(verifyHmacSignature(ok.parsed, ok.base, secret)).toBe(true);
  });

  it('signs with the endpoint key (Ed25519)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const h = signRequest(
      { method: 'POST', target: '/v1/agent/session', body: '{}' },
      { alg: 'ed25519', keyid: 'ek1:x', privateKey },
    );
    const { parsed, base } = check(h, 'POST', '/v1/agent/session', '{}');
    expect(parsed.alg).toBe('ed25519');
    expect(verifyEd25519Signature(parsed, base, publicKey)).toBe(true);
    expect(verifyEd25519Signature(parsed, base.replace('POST', 'PUT'), publicKey)).toBe(false);
  });

  it('parses strictly and names what is wrong', () => {
    const good = signRequest({ method: 'GET', target: '/' }, key);
    const bad = (input: string | undefined, sig: string | undefined = good.signature) => {
      const r = parseSignatureHeaders(input, sig);
      return r.ok ? 'ok' : r.message;
    };
    expect(parseSignatureHeaders(undefined, undefined)).toMatchObject({ ok: false, missing: true });
    expect(bad(good['signature-input'])).toBe('ok');
    expect(bad(undefined)).toMatch(/Signature-Input must be present/);
    expect(parseSignatureHeaders(good['signature-input'], undefined)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Signature must be present/),
    });
    expect(bad(good['signature-input'].replace('hw=', 'sig1='))).toMatch(/must start with hw=/);
    expect(bad(good['signature-input'].replace(' "content-digest"', ''))).toMatch(/must start with/);
    expect(bad(good['signature-input'] + ';created=1')).toMatch(/created appears twice/);
    expect(bad(good['signature-input'] + ';expires=1')).toMatch(/not name="value"/);
    expect(bad(good['signature-input'].replace('alg="hmac-sha256"', 'alg="rsa"'))).toMatch(/alg=/);
    expect(bad(good['signature-input'].replace(/nonce="[^"]*"/, 'nonce="short"'))).toMatch(/nonce/);
    expect(bad(good['signature-input'].replace(/created=\d+/, 'created="1"'))).toMatch(/created must be an integer/);
    expect(bad(good['signature-input'], 'hw=abc')).toMatch(/Signature must be hw=:<base64>:/);
    expect(bad('hw=' + 'x'.repeat(2000))).toMatch(/limited to 1024/);
    expect(bad(good['signature-input'].replace(/;alg="[^"]*"/, ''))).toMatch(/alg=/);
    // Linear on hostile input: a long run of one character is refused quickly.
    const t = Date.now();
    parseSignatureHeaders('hw=("@method" "@path" "@query" "content-digest");' + '"'.repeat(1000), good.signature);
    expect(Date.now() - t).toBeLessThan(1000);
  });

  it('parses parameters in any order (the general path), with the same values as the canonical form', () => {
    const h = signRequest({ method: 'GET', target: '/' }, key, 1_800_000_000_000, 'n'.repeat(16));
    const canonical = parseSignatureHeaders(h['signature-input'], h.signature);
    const reordered = parseSignatureHeaders(
      `hw=("@method" "@path" "@query" "content-digest");alg="hmac-sha256";keyid="hs1.session";nonce="${'n'.repeat(16)}";created=1800000000`,
      h.signature,
    );
    expect(canonical.ok && reordered.ok).toBe(true);
    if (canonical.ok && reordered.ok) {
      const { paramsText: _a, ...c } = canonical.value;
      const { paramsText: _b, ...r } = reordered.value;
      expect(r).toEqual(c);
    }
  });

  it('parses Content-Digest sha-256 only', () => {
    expect(parseContentDigest(contentDigest('x'))?.length).toBe(32);
    expect(parseContentDigest('sha-512=:abc:')).toBeNull();
    expect(parseContentDigest(['a', 'b'])).toBeNull();
    expect(parseContentDigest(undefined)).toBeNull();
    expect(contentDigest(Buffer.alloc(0))).toBe(contentDigest(undefined));
  });
});

describe('session key seal', () => {
  it('opens only with the agent ephemeral key and the same session id', () => {
    const sessionKey = randomBytes(32);
    const eph = newSessionEphemeral();
    const sealed = sealSessionKey(sessionKey, eph.publicKey, 'hs1.a');
    expect(openSessionKey(sealed, eph, 'hs1.a').equals(sessionKey)).toBe(true);
    expect(() => openSessionKey(sealed, eph, 'hs1.b')).toThrow(/does not open/);
    expect(() => openSessionKey(sealed, newSessionEphemeral(), 'hs1.a')).toThrow(/does not open/);
    expect(() => sealSessionKey(sessionKey, 'nope', 'hs1.a')).toThrow(/X25519/);
  });
});
