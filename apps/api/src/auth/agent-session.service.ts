// Issues agent sessions (POST /v1/agent/session) and gives every instance the same session keys: K is derived from the
// KEK once (a KEK rotation ends every session; agents renew on 401 session_expired).
import { createSecretKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type SealedSessionKey, sealSessionKey } from '@hookwarden/hook-core';
import { ApiError } from '../common/api-error';
import { BoundedCache } from '../common/bounded-cache';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { KeyVault } from '../signing/key-vault.service';
import { newSessionId, SESSION_KEY_INFO, sessionKey } from './agent-session';
import type { EndpointIdentity } from './credentials.repository';

/** A new session as answered to the agent. */
export interface IssuedSession {
  sessionId: string;
  expiresAt: string;
  /** The session key sealed to the agent's ephemeral X25519 key. */
  sealedKey?: SealedSessionKey;
  /** The session key in clear (base64url), only when the agent sent no ephemeral key. */
  sessionKey?: string;
}

@Injectable()
export class AgentSessionService {
  private root: Buffer | null = null;
  /** Session id → its HMAC key (a KeyObject: cheaper to use than raw bytes), one derivation per session. */
  private readonly keys = new BoundedCache<string, KeyObject>({ max: 100_000 });

  constructor(
    private readonly vault: KeyVault,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // The session root key K (derived on first use).
  private rootKey(): Buffer {
    this.root ??= this.vault.deriveKey(SESSION_KEY_INFO);
    return this.root;
  }

  // The HMAC key of a session id (cached per session).
  keyFor(sessionId: string): KeyObject {
    let key = this.keys.get(sessionId);
    if (!key) {
      key = createSecretKey(sessionKey(this.rootKey(), sessionId));
      this.keys.set(sessionId, key);
    }
    return key;
  }

  // Issues a session for an endpoint whose key signed the request; the key sealed when an ephemeral key is given.
  issue(identity: EndpointIdentity, ephemeralKey: string | undefined, now = Date.now()): IssuedSession {
    if (!identity.keyId) throw new ApiError('unauthorized', 'This endpoint has no key');
    const expiresAt = Math.floor(now / 1000) + this.config.AGENT_SESSION_TTL_SEC;
    const sessionId = newSessionId(identity.endpointId, identity.keyId, expiresAt);
    const key = sessionKey(this.rootKey(), sessionId);
    const out: IssuedSession = { sessionId, expiresAt: new Date(expiresAt * 1000).toISOString() };
    if (ephemeralKey === undefined) out.sessionKey = key.toString('base64url');
    else {
      try {
        out.sealedKey = sealSessionKey(key, ephemeralKey, sessionId);
      } catch (err) {
        throw new ApiError('validation_failed', (err as Error).message, [
          { path: '$.ephemeralKey', message: (err as Error).message },
        ]);
      }
    }
    return out;
  }
}
