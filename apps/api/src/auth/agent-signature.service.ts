// Verifies signed agent requests (docs/agent.md "Endpoint identity"). Checks, in order, each with its own code:
//   signature_required / signature_malformed (401): headers missing, or not exactly the documented shape;
//   session_expired (401): the session id is unknown or past its expiry (renew with POST /v1/agent/session);
//   unauthorized (401): no such endpoint, revoked, rejected or retired, or the session's key is no longer its key;
//   endpoint_pending (403): the endpoint awaits an admin's decision;
//   clock_skew (401): `created` further than MAX_CLOCK_SKEW_SEC from the server's clock (the offset is named);
//   digest_mismatch (401): Content-Digest is not the SHA-256 of the body bytes received;
//   signature_invalid (401): the signature does not verify;
//   replayed_request (401): the nonce was already used by this endpoint within the window (NonceStore).
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  contentDigest,
  MAX_CLOCK_SKEW_SEC,
  parseContentDigest,
  parseSignatureHeaders,
  type ParsedSignature,
  type SignatureAlg,
  signatureBase,
  splitTarget,
  verifyEd25519Signature,
  verifyHmacSignature,
} from '@hookwarden/hook-core';
import { ApiError, type ErrorCode } from '../common/api-error';
import { parseSessionId, type SessionClaims, sessionKeyMatches } from './agent-session';
import { AgentSessionService } from './agent-session.service';
import { AuthService } from './auth.service';
import type { EndpointIdentity } from './credentials.repository';
import { NonceStore } from './nonce-store.service';
import type { Principal } from './principal';

/** What the checks read of a request: method, target, headers, and the SHA-256 of the body bytes as received. */
export interface SignedRequestView {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  /** SHA-256 of the raw body (absent: no body was read, i.e. empty). */
  bodyDigest?: Buffer;
}

/** SHA-256 of the empty body, and its Content-Digest header. */
export const EMPTY_DIGEST = createHash('sha256').digest();
const EMPTY_DIGEST_HEADER = contentDigest();

const UNAUTHORIZED_HEADERS = { 'www-authenticate': 'Signature' };

// An identity refusal with its code.
function refuse(code: ErrorCode, message: string): ApiError {
  return new ApiError(code, message, undefined, code === 'endpoint_pending' ? undefined : UNAUTHORIZED_HEADERS);
}

// The refusal of a nonce already used.
function replayed(): ApiError {
  return refuse('replayed_request', 'This request was already received (nonce reused); sign every request anew');
}

/** The principal of a verified session-signed request. */
export type AgentPrincipal = Principal & { kind: 'agent' };

// True when a request carries signature headers (it is then judged as a signed request, never as a bearer).
export function isSigned(headers: IncomingHttpHeaders): boolean {
  return headers['signature-input'] !== undefined || headers.signature !== undefined;
}

// The 401 of an agent route without a valid signature or legacy bearer.
export function signatureRequired(): ApiError {
  return new ApiError(
    'signature_required',
    'Agent requests must be signed with a session of the endpoint key (a bearer credential is accepted only from ' +
      'endpoints enrolled before endpoint keys, until they migrate)',
    undefined,
    { 'www-authenticate': 'Signature' },
  );
}

@Injectable()
export class AgentSignatureService {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: AgentSessionService,
    private readonly nonces: NonceStore,
  ) {}

  // Parses the signature headers for the algorithm a route takes.
  private parse(req: SignedRequestView, alg: SignatureAlg): ParsedSignature {
    const r = parseSignatureHeaders(req.headers['signature-input'], req.headers.signature);
    if (!r.ok) {
      throw refuse(
        r.missing ? 'signature_required' : 'signature_malformed',
        r.missing ? 'This route needs a signed request (Signature-Input, Signature, Content-Digest)' : r.message,
      );
    }
    if (r.value.alg !== alg) {
      throw refuse(
        'signature_malformed',
        alg === 'hmac-sha256'
          ? 'Agent requests are signed with a session key (alg="hmac-sha256"); get one with POST /v1/agent/session'
          : 'POST /v1/agent/session is signed with the endpoint key (alg="ed25519", keyid = its key id)',
      );
    }
    return r.value;
  }

  // Refuses an endpoint that may not sign now: unknown, revoked, not admitted (pending: 403), or another key.
  private admit(identity: EndpointIdentity | null, keyMatches: (id: EndpointIdentity) => boolean): EndpointIdentity {
    if (!identity || identity.revoked || identity.admission === 'rejected' || identity.admission === 'retired') {
      throw refuse('unauthorized', 'Unknown, revoked or retired endpoint');
    }
    if (!keyMatches(identity)) throw refuse('unauthorized', "The signing key is no longer this endpoint's key");
    if (identity.admission === 'pending') {
      throw refuse('endpoint_pending', 'This endpoint awaits an admin decision (duplicate machine id); retry later');
    }
    if (identity.admission !== 'active') throw refuse('unauthorized', 'Endpoint not admitted');
    return identity;
  }

  // Checks the clock, the digest and the signature bytes (the rest of the order after admission).
  private checkRequest(
    req: SignedRequestView,
    parsed: ParsedSignature,
    now: number,
    verify: (base: string) => boolean,
  ): void {
    const offset = parsed.created - Math.floor(now / 1000);
    if (Math.abs(offset) > MAX_CLOCK_SKEW_SEC) {
      throw refuse(
        'clock_skew',
        `The signature's created time is ${Math.abs(offset)} s ${offset > 0 ? 'ahead of' : 'behind'} the server's ` +
          `clock; the limit is ${MAX_CLOCK_SKEW_SEC} s (fix the endpoint's clock)`,
      );
    }
    const header = req.headers['content-digest'];
    // The header as the body's digest would be written: one string compare on the hot path (GETs: a constant).
    const expected = req.bodyDigest ? `sha-256=:${req.bodyDigest.toString('base64')}:` : EMPTY_DIGEST_HEADER;
    if (header !== expected) {
      if (!parseContentDigest(header)) {
        throw refuse(
          header === undefined ? 'signature_required' : 'signature_malformed',
          'Content-Digest must be sha-256=:<base64>: of the body',
        );
      }
      if (!parseContentDigest(header)!.equals(req.bodyDigest ?? EMPTY_DIGEST)) {
        throw refuse('digest_mismatch', 'Content-Digest does not match the body received');
      }
    }
    const { path, query } = splitTarget(req.url ?? '/');
    const base = signatureBase(
      { method: req.method ?? 'GET', path, query, contentDigest: (header as string).trim() },
      parsed.paramsText,
    );
    if (!verify(base)) throw refuse('signature_invalid', 'The request signature does not verify');
  }

  // Refuses a replayed nonce.
  private async checkNonce(endpointId: string, nonce: string): Promise<void> {
    if (!(await this.nonces.first(endpointId, nonce))) throw replayed();
  }

  // The checks of a session-signed request before its identity is known: parsed headers and session claims.
  private sessionClaims(req: SignedRequestView, now: number): { parsed: ParsedSignature; claims: SessionClaims } {
    const parsed = this.parse(req, 'hmac-sha256');
    const claims = parseSessionId(parsed.keyid);
    if (!claims) throw refuse('session_expired', 'Unknown session; get one with POST /v1/agent/session');
    if (claims.expiresAt * 1000 <= now) {
      throw refuse('session_expired', 'The session has expired; get a new one with POST /v1/agent/session');
    }
    return { parsed, claims };
  }

  // The checks after the identity is known, up to the nonce: admission, key, clock, digest, signature.
  private sessionRequest(
    req: SignedRequestView,
    now: number,
    parsed: ParsedSignature,
    claims: SessionClaims,
    found: EndpointIdentity | null,
  ): EndpointIdentity {
    const identity = this.admit(found, (id) => sessionKeyMatches(claims, id.keyId));
    const key = this.sessions.keyFor(parsed.keyid);
    this.checkRequest(req, parsed, now, (base) => verifyHmacSignature(parsed, base, key));
    return identity;
  }

  // Verifies a session-signed request (HMAC); the endpoint's principal, or throws the refusal.
  async verifySession(req: SignedRequestView, now = Date.now()): Promise<AgentPrincipal> {
    const { parsed, claims } = this.sessionClaims(req, now);
    const found = this.auth.cachedIdentity(claims.endpointId) ?? (await this.auth.identity(claims.endpointId));
    const identity = this.sessionRequest(req, now, parsed, claims, found);
    await this.checkNonce(identity.endpointId, parsed.nonce);
    return { kind: 'agent', endpointId: identity.endpointId, groupId: identity.groupId, name: identity.name };
  }

  // verifySession for the hot path (the bundle route): the same checks in the same order, run synchronously while the
  // endpoint's identity is cached, so a request costs one promise (its nonce check) instead of a chain of them.
  // A refusal before the nonce check is thrown; the nonce's is the returned promise's rejection.
  verifySessionQuick(req: SignedRequestView, now = Date.now()): Promise<AgentPrincipal> {
    const { parsed, claims } = this.sessionClaims(req, now);
    const cached = this.auth.cachedIdentity(claims.endpointId);
    if (!cached) return this.verifySession(req, now);
    const identity = this.sessionRequest(req, now, parsed, claims, cached);
    return this.nonces.first(identity.endpointId, parsed.nonce).then((first) => {
      if (!first) throw replayed();
      return { kind: 'agent', endpointId: identity.endpointId, groupId: identity.groupId, name: identity.name };
    });
  }

  // Verifies a request signed with the endpoint key itself (Ed25519, keyid = its key id): POST /v1/agent/session.
  async verifyEndpointKey(req: SignedRequestView, now = Date.now()): Promise<EndpointIdentity> {
    const parsed = this.parse(req, 'ed25519');
    const identity = this.admit(await this.auth.identityByKey(parsed.keyid), (id) => id.keyId === parsed.keyid);
    const publicKey = identity.publicKey;
    if (!publicKey) throw refuse('unauthorized', 'This endpoint has no usable key');
    this.checkRequest(req, parsed, now, (base) => verifyEd25519Signature(parsed, base, publicKey));
    await this.checkNonce(identity.endpointId, parsed.nonce);
    return identity;
  }
}
