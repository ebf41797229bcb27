// Resolves a bearer secret to a principal, with a short-lived cache for the polling hot path.
import { Injectable } from '@nestjs/common';
import { CredentialsRepository } from './credentials.repository';
import { AGENT_TOKEN_PREFIX, hashSecret, type Principal, USER_TOKEN_PREFIX } from './principal';

const CACHE_TTL_MS = 5_000;
/** Agent credentials are cached longer (the bundle long poll is the hot path); endpoint revocations are announced to
 *  every instance, which then calls invalidate(). */
const AGENT_CACHE_TTL_MS = 30_000;
const CACHE_MAX = 50_000;

@Injectable()
export class AuthService {
  private readonly cache = new Map<string, { principal: Principal; expires: number }>();
  /** Bumped by invalidate(): a lookup that started before an invalidation does not cache its (stale) answer. */
  private generation = 0;

  constructor(private readonly credentials: CredentialsRepository) {}

  // The principal cached for a bearer secret, without waiting (undefined: not cached, authenticate() instead).
  cached(secret: string, now = Date.now()): Principal | undefined {
    const hit = this.cache.get(hashSecret(secret));
    return hit && hit.expires > now ? hit.principal : undefined;
  }

  // Returns the principal for a bearer secret, or null when it is unknown, revoked or expired.
  async authenticate(secret: string, now = new Date()): Promise<Principal | null> {
    const hash = hashSecret(secret);
    const cached = this.cache.get(hash);
    if (cached && cached.expires > now.getTime()) return cached.principal;
    const generation = this.generation;
    let principal: Principal | null = null;
    if (secret.startsWith(USER_TOKEN_PREFIX)) principal = await this.credentials.findUserToken(hash, now);
    else if (secret.startsWith(AGENT_TOKEN_PREFIX)) principal = await this.credentials.findEndpoint(hash);
    if (principal && generation === this.generation) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      const ttl = principal.kind === 'agent' ? AGENT_CACHE_TTL_MS : CACHE_TTL_MS;
      this.cache.set(hash, { principal, expires: now.getTime() + ttl });
    } else {
      this.cache.delete(hash);
    }
    return principal;
  }

  // Forgets every cached principal (call after a revocation or credential rotation so it takes effect at once on
  // this instance; other instances are told through the bundle-events channel).
  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }
}
