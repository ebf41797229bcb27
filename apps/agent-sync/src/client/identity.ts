// The endpoint's identity on the wire: a session opened with the endpoint key (POST /v1/agent/session, Ed25519-signed,
// session key sealed to an ephemeral X25519 key) signs every request with HMAC; renewed before expiry and on 401
// session_expired. Plus the migration of a bearer-enrolled endpoint to its own key (POST /v1/agent/key).
import {
  migrateProofPayload,
  newSessionEphemeral,
  openSessionKey,
  type SealedSessionKey,
  signEndpointProof,
  signRequest,
} from '@hookwarden/hook-core';
import { log } from '../log';
import { type Credentials, writeCredentials } from '../state/credentials';
import {
  type EndpointKey,
  newEndpointKey,
  PENDING_KEY_FILE,
  promotePendingKey,
  readEndpointKey,
  storeEndpointKey,
} from '../state/endpoint-key';
import { ApiClient, type ApiClientOptions, ApiHttpError, type RequestSigner } from './api-client';

/** A session is renewed this long before the expiry the server named (clock differences, slow requests). */
const RENEW_BEFORE_MS = 60_000;

interface Session {
  id: string;
  key: Buffer;
  /** Local time after which it is renewed. */
  renewAt: number;
}

interface SessionAnswer {
  sessionId: string;
  expiresAt: string;
  sealedKey?: SealedSessionKey;
}

// The path and query the server receives for `path` on `baseUrl` (what the signature covers).
export function signedTarget(baseUrl: string, path: string): string {
  const url = new URL(baseUrl + path);
  return url.pathname + url.search;
}

/** Signs requests with a session of the endpoint key; one per process and key (sessions are shared). */
export class SessionSigner implements RequestSigner {
  private session: Session | null = null;
  private opening: Promise<Session> | null = null;
  private readonly plain: ApiClient;

  constructor(
    private readonly baseUrl: string,
    readonly key: EndpointKey,
    options: Omit<ApiClientOptions, 'baseUrl' | 'credential' | 'signer'> = {},
  ) {
    this.plain = new ApiClient({ ...options, baseUrl, timeoutMs: 15_000 });
  }

  // Opens a session now (throws the server's refusal, e.g. 403 endpoint_pending).
  async open(signal?: AbortSignal): Promise<Session> {
    const ephemeral = newSessionEphemeral();
    const body = Buffer.from(JSON.stringify({ ephemeralKey: ephemeral.publicKey }), 'utf8');
    const headers = signRequest(
      { method: 'POST', target: signedTarget(this.plain.baseUrl, '/v1/agent/session'), body },
      { alg: 'ed25519', keyid: this.key.keyId, privateKey: this.key.privateKey },
    );
    const started = Date.now();
    const answer = await this.plain.json<SessionAnswer>('POST', '/v1/agent/session', {
      body,
      headers: { ...headers, 'content-type': 'application/json' },
      maxBodyBytes: 16 * 1024,
      signal,
    });
    if (typeof answer.sessionId !== 'string' || !answer.sealedKey) {
      throw new Error('POST /v1/agent/session: the answer has no sealed session key');
    }
    const key = openSessionKey(answer.sealedKey, ephemeral, answer.sessionId);
    // Renewed a minute before the expiry (a clock off by some minutes gets 401 session_expired and renews then).
    const left = Date.parse(answer.expiresAt) - started - RENEW_BEFORE_MS;
    return { id: answer.sessionId, key, renewAt: started + Math.min(3600_000, Math.max(1000, left || 0)) };
  }

  // The current session, opened or renewed when needed (one opening at a time).
  private async current(signal?: AbortSignal): Promise<Session> {
    if (this.session && Date.now() < this.session.renewAt) return this.session;
    this.opening ??= this.open(signal).finally(() => (this.opening = null));
    this.session = await this.opening;
    return this.session;
  }

  // The signature headers of one request.
  async sign(method: string, target: string, body: Uint8Array | undefined, signal?: AbortSignal) {
    const s = await this.current(signal);
    return signRequest({ method, target, body }, { alg: 'hmac-sha256', keyid: s.id, secret: s.key });
  }

  // After a 401: a session the server no longer knows is renewed and the request retried once.
  refused(code: string): boolean {
    if (code !== 'session_expired') return false;
    this.session = null;
    return true;
  }
}

const signers = new Map<string, SessionSigner>();

// The process's signer for an endpoint key on a server.
export function signerFor(baseUrl: string, key: EndpointKey): SessionSigner {
  const id = `${baseUrl}|${key.keyId}`;
  let s = signers.get(id);
  if (!s) {
    s = new SessionSigner(baseUrl, key);
    signers.set(id, s);
  }
  return s;
}

// An API client for this endpoint: signed with its key when it has one, else (legacy) its bearer credential.
export async function endpointClient(
  stateDir: string,
  creds: Credentials,
  options: Omit<ApiClientOptions, 'baseUrl' | 'credential' | 'signer'> = {},
): Promise<ApiClient> {
  const key = await readEndpointKey(stateDir);
  if (key) return new ApiClient({ ...options, baseUrl: creds.serverUrl, signer: signerFor(creds.serverUrl, key) });
  if (!creds.credential) {
    throw new Error(`${stateDir}: no endpoint key and no credential (enroll again: hookwarden-agent enroll)`);
  }
  return new ApiClient({ ...options, baseUrl: creds.serverUrl, credential: creds.credential });
}

// Migrates a bearer-enrolled endpoint to its own key: a pending key (0600) is registered with POST /v1/agent/key
// (bearer + `migrate` proof), then becomes the endpoint key and the bearer is dropped from credentials.json. A crash
// in between is safe: the same pending key is tried again (a session with it proves the server already took it).
// Returns the credentials as they are now.
export async function migrateToKey(stateDir: string, creds: Credentials): Promise<Credentials> {
  if ((await readEndpointKey(stateDir)) || !creds.credential) return creds;
  let pending = await readEndpointKey(stateDir, PENDING_KEY_FILE);
  if (pending) {
    try {
      await new SessionSigner(creds.serverUrl, pending).open();
      return finishMigration(stateDir, creds, 'the server had already accepted the pending key');
    } catch (err) {
      if (!(err instanceof ApiHttpError) || err.status !== 401) throw err;
    }
  } else {
    pending = newEndpointKey();
    await storeEndpointKey(stateDir, pending, PENDING_KEY_FILE);
  }
  const client = new ApiClient({ baseUrl: creds.serverUrl, credential: creds.credential, timeoutMs: 15_000 });
  await client.json('POST', '/v1/agent/key', {
    body: {
      publicKey: pending.publicKeyPem,
      proof: signEndpointProof(
        pending.privateKey,
        'migrate',
        migrateProofPayload({ endpointId: creds.endpointId, publicKey: pending.publicKeyPem }),
      ),
    },
    maxBodyBytes: 16 * 1024,
  });
  return finishMigration(stateDir, creds, 'registered the endpoint key; the bearer credential is retired');
}

// Promotes the pending key and drops the bearer from the credentials.
async function finishMigration(stateDir: string, creds: Credentials, what: string): Promise<Credentials> {
  await promotePendingKey(stateDir);
  const { credential: _dropped, ...rest } = creds;
  await writeCredentials(stateDir, rest);
  log('info', what, { endpointId: creds.endpointId });
  return rest;
}
