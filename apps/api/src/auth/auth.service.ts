// Resolves a bearer secret to a principal, with a bounded LRU cache (TTL per kind) for the polling hot path.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { BoundedCache } from '../common/bounded-cache';
import { CredentialsRepository, type EndpointIdentity } from './credentials.repository';
import { AGENT_TOKEN_PREFIX, hashSecret, type Principal, USER_TOKEN_PREFIX } from './principal';

/** People's tokens are cached briefly (revocation on another instance takes effect within this time). */
const USER_CACHE_TTL_MS = 5_000;
/** Agent credentials are cached longer (the bundle long poll is the hot path); endpoint revocations and rotations
 *  are announced to every instance, which then calls invalidateEndpoint(). */
const AGENT_CACHE_TTL_MS = 30_000;
/** Fewest cache entries, whatever BUNDLE_MAX_WAITERS says. */
const MIN_CACHE_MAX = 100_000;
/** Longest secret worth looking up (longer ones are never issued). */
const MAX_SECRET_LENGTH = 512;

// The cache key of the principal a credential belongs to (one live credential each).
function ownerKey(p: Principal): string {
  return p.kind === 'agent' ? `endpoint:${p.endpointId}` : `token:${p.tokenId}`;
}

@Injectable()
export class AuthService {
  /** Secret hash → principal; least recently used entries go first once full, each expires after its TTL. */
  private readonly cache: BoundedCache<string, Principal>;
  /** Owner (endpoint or token id) → the hash cached for it, so one owner's entry can be dropped alone. */
  private readonly byOwner = new Map<string, string>();
  /** Bumped by every invalidation: a lookup that started before one does not cache its (maybe stale) answer. */
  private generation = 0;
  /** Endpoint id → its identity for signed requests (same TTL and invalidation as agent credentials). */
  private readonly identities: BoundedCache<string, EndpointIdentity>;

  constructor(
    private readonly credentials: CredentialsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cache = new BoundedCache<string, Principal>({
      max: Math.max(MIN_CACHE_MAX, 2 * config.BUNDLE_MAX_WAITERS),
      ttl: AGENT_CACHE_TTL_MS,
      dispose: (principal, hash) => {
        const owner = ownerKey(principal);
        if (this.byOwner.get(owner) === hash) this.byOwner.delete(owner);
      },
    });
    this.identities = new BoundedCache<string, EndpointIdentity>({
      max: Math.max(MIN_CACHE_MAX, 2 * config.BUNDLE_MAX_WAITERS),
      ttl: AGENT_CACHE_TTL_MS,
    });
  }

  // The identity cached for an endpoint id, without waiting (undefined: not cached, identity() instead).
  cachedIdentity(endpointId: string): EndpointIdentity | undefined {
    return this.identities.get(endpointId);
  }

  // An endpoint's identity for signed requests (cached), or null when there is no such endpoint.
  async identity(endpointId: string): Promise<EndpointIdentity | null> {
    const hit = this.identities.get(endpointId);
    if (hit) return hit;
    const generation = this.generation;
    const found = await this.credentials.findIdentity(endpointId);
    if (found && generation === this.generation) this.identities.set(endpointId, found);
    return found;
  }

  // An endpoint's identity by key id (uncached: sessions are made once per TTL per agent).
  async identityByKey(keyId: string): Promise<EndpointIdentity | null> {
    return this.credentials.findIdentityByKey(keyId);
  }

  // The principal cached for a bearer secret, without waiting (undefined: not cached, authenticate() instead).
  cached(secret: string): Principal | undefined {
    return this.cache.get(hashSecret(secret));
  }

  // Returns the principal for a bearer secret, or null when it is unknown, revoked or expired.
  async authenticate(secret: string, now = new Date()): Promise<Principal | null> {
    if (!secret || secret.length > MAX_SECRET_LENGTH) return null;
    const hash = hashSecret(secret);
    const hit = this.cache.get(hash);
    if (hit) return hit;
    const generation = this.generation;
    let principal: Principal | null = null;
    if (secret.startsWith(USER_TOKEN_PREFIX)) principal = await this.credentials.findUserToken(hash, now);
    else if (secret.startsWith(AGENT_TOKEN_PREFIX)) principal = await this.credentials.findEndpoint(hash);
    if (principal && generation === this.generation) {
      const owner = ownerKey(principal);
      const previous = this.byOwner.get(owner);
      if (previous !== undefined && previous !== hash) this.cache.delete(previous);
      this.cache.set(hash, principal, {
        ttl: principal.kind === 'agent' ? AGENT_CACHE_TTL_MS : USER_CACHE_TTL_MS,
      });
      this.byOwner.set(owner, hash);
    }
    return principal;
  }

  // Forgets the cached credential and identity of one endpoint (revoked, re-keyed, moved, approved, rejected, retired),
  // here and for lookups in flight.
  invalidateEndpoint(endpointId: string): void {
    this.identities.delete(endpointId);
    this.invalidateOwner(`endpoint:${endpointId}`);
  }

  // Forgets the cached secret of one API token (revoked).
  invalidateToken(tokenId: string): void {
    this.invalidateOwner(`token:${tokenId}`);
  }

  // Drops one owner's entry and stops lookups in flight from caching.
  private invalidateOwner(owner: string): void {
    this.generation++;
    const hash = this.byOwner.get(owner);
    if (hash !== undefined) this.cache.delete(hash);
    this.byOwner.delete(owner);
  }

  // Forgets every cached credential (a person's sessions and personal tokens ended at once: rare, admin-driven).
  invalidateAll(): void {
    this.generation++;
    this.cache.clear();
    this.byOwner.clear();
    this.identities.clear();
  }

  /** Bumped by every invalidation: a caller that saw it change since it authenticated may hold a stale principal. */
  get invalidations(): number {
    return this.generation;
  }

  /** Entries cached now (for tests and metrics). */
  get size(): number {
    return this.cache.size;
  }
}
