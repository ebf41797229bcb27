// Per-process bundle delivery state: group → bundle state cache and group → held long-poll requests.
// Invalidated by the Redis bundle-events channel, so answering a revalidation costs no database query.
import { MetricsService } from '../metrics/metrics.service';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AuthService } from '../auth/auth.service';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { BundleEventsService } from '../releases/bundle-events.service';
import { ReleasesService } from '../releases/releases.service';
import type { GroupBundleState, ServedBundle } from '../releases/rollout';

/** Safety net if a pub/sub message is lost: cached states are refreshed after this long. */
const CACHE_TTL_MS = 30_000;

interface CacheEntry {
  state: Promise<GroupBundleState>;
  /** The state once loaded (answers without waiting). */
  value?: GroupBundleState;
  at: number;
}

/** Which bundle of its group's state an endpoint is answered with on a route (the managed or the shadow one). */
export interface BundleSelector {
  select(state: GroupBundleState, endpointId: string): ServedBundle | null;
  /** True when "no bundle" is itself news to a client naming one in If-None-Match (the shadow layer is removed). */
  readonly noneIsChange: boolean;
}

export interface Waiter {
  endpointId: string;
  ifNoneMatch: string | undefined;
  /** The route's bundle of the endpoint (what a wake-up compares with If-None-Match). */
  selector: BundleSelector;
  /** Called once with the endpoint's new bundle (null: none), `undefined` when the wait ended unchanged,
   *  'revoked' when the endpoint was revoked meanwhile, or 'recheck' when its credential was rotated (the request
   *  must authenticate again: the old credential gets 401). */
  finish(bundle: ServedBundle | null | undefined | 'revoked' | 'recheck'): void;
}

// True when the client's If-None-Match names this bundle, or there is no bundle to send (unless `noneIsChange` and the
// client names one: it holds a bundle it must drop).
export function unchanged(bundle: ServedBundle | null, ifNoneMatch: string | undefined, noneIsChange = false): boolean {
  if (!bundle) return !(noneIsChange && ifNoneMatch);
  if (!ifNoneMatch) return false;
  if (ifNoneMatch === bundle.etag) return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === bundle.etag);
}

@Injectable()
export class BundleCacheService implements OnModuleDestroy {
  private readonly logger = new Logger('BundleCache');
  private readonly cache = new Map<string, CacheEntry>();
  private readonly generation = new Map<string, number>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private held = 0;
  /** Endpoints revoked since this process started (announced on the bundle-events channel). */
  private readonly revoked = new Set<string>();
  private started = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly releases: ReleasesService,
    private readonly events: BundleEventsService,
    private readonly auth: AuthService,
    metrics: MetricsService,
  ) {
    metrics.gauge('hookwarden_long_polls_held', 'Bundle long polls this API instance holds right now', () => this.held);
  }

  // Subscribes this process to bundle events (called by the HTTP route registration only).
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.events.subscribe((message) => {
      if (message?.startsWith(BundleEventsService.REVOKED))
        this.onRevoked(message.slice(BundleEventsService.REVOKED.length));
      else if (message?.startsWith(BundleEventsService.CREDENTIAL))
        this.onCredentialRotated(message.slice(BundleEventsService.CREDENTIAL.length));
      else if (message?.startsWith(BundleEventsService.READMITTED))
        this.onReadmitted(message.slice(BundleEventsService.READMITTED.length));
      else this.onChange(message);
    });
  }

  // Number of requests held right now.
  get heldCount(): number {
    return this.held;
  }

  // True when another held request would exceed the configured limit.
  get full(): boolean {
    return this.held >= this.config.BUNDLE_MAX_WAITERS;
  }

  // The group's change counter (a waiter registered after a change it did not see re-evaluates).
  gen(groupId: string): number {
    return this.generation.get(groupId) ?? 0;
  }

  // The group's bundle state when it is cached and loaded, without waiting (undefined: call state()).
  stateNow(groupId: string): GroupBundleState | undefined {
    const hit = this.cache.get(groupId);
    return hit && Date.now() - hit.at < CACHE_TTL_MS ? hit.value : undefined;
  }

  // The group's bundle state, from the cache or one shared database read.
  async state(groupId: string): Promise<GroupBundleState> {
    const now = Date.now();
    const hit = this.cache.get(groupId);
    if (hit && now - hit.at < CACHE_TTL_MS) return hit.state;
    const entry: CacheEntry = { state: this.releases.bundleState(groupId), at: now };
    this.cache.set(groupId, entry);
    entry.state.then(
      (value) => {
        entry.value = value;
      },
      () => {
        if (this.cache.get(groupId) === entry) this.cache.delete(groupId);
      },
    );
    return entry.state;
  }

  // Holds a request until the endpoint's bundle changes or `waitMs` passes; returns a cancel function.
  hold(groupId: string, waiter: Waiter, waitMs: number): () => void {
    let set = this.waiters.get(groupId);
    if (!set) this.waiters.set(groupId, (set = new Set()));
    let done = false;
    // Removes this waiter exactly once (answered, timed out or cancelled); false when it was already gone.
    const release = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      this.held--;
      const s = this.waiters.get(groupId);
      s?.delete(entry);
      if (s && s.size === 0) this.waiters.delete(groupId);
      return true;
    };
    const entry: Waiter = {
      endpointId: waiter.endpointId,
      ifNoneMatch: waiter.ifNoneMatch,
      selector: waiter.selector,
      finish: (bundle) => {
        if (release()) waiter.finish(bundle);
      },
    };
    const timer = setTimeout(() => entry.finish(undefined), waitMs);
    set.add(entry);
    this.held++;
    return () => void release();
  }

  // An endpoint was revoked (on any instance): forget cached credentials and end its held requests with 401.
  onRevoked(endpointId: string): void {
    this.revoked.add(endpointId);
    this.auth.invalidateEndpoint(endpointId);
    for (const set of [...this.waiters.values()]) {
      for (const w of [...set]) if (w.endpointId === endpointId) w.finish('revoked');
    }
  }

  // An endpoint's credential was rotated (on any instance): forget cached credentials and make its held requests
  // authenticate again, so the old credential stops working at once.
  onCredentialRotated(endpointId: string): void {
    this.auth.invalidateEndpoint(endpointId);
    for (const set of [...this.waiters.values()]) {
      for (const w of [...set]) if (w.endpointId === endpointId) w.finish('recheck');
    }
  }

  // A revoked endpoint was re-admitted (on any instance): its held requests are no longer answered as revoked.
  onReadmitted(endpointId: string): void {
    this.revoked.delete(endpointId);
    this.auth.invalidateEndpoint(endpointId);
  }

  // True when the endpoint was revoked while its request was held.
  isRevoked(endpointId: string): boolean {
    return this.revoked.has(endpointId);
  }

  // A group's bundle changed (null: maybe every group): drop the cache and answer the waiters whose bundle changed.
  onChange(groupId: string | null): void {
    const groups = groupId === null ? [...new Set([...this.cache.keys(), ...this.waiters.keys()])] : [groupId];
    for (const g of groups) {
      this.generation.set(g, this.gen(g) + 1);
      this.cache.delete(g);
      if (this.waiters.has(g)) void this.wake(g);
    }
  }

  // Re-reads the group's state once and releases every waiter whose bundle differs from what it holds.
  private async wake(groupId: string): Promise<void> {
    let state: GroupBundleState;
    try {
      state = await this.state(groupId);
    } catch (err) {
      this.logger.warn(
        { err, groupId },
        'could not load the bundle state to wake waiters; they retry at their timeout',
      );
      return;
    }
    const set = this.waiters.get(groupId);
    if (!set) return;
    for (const w of [...set]) {
      const bundle = w.selector.select(state, w.endpointId);
      if (this.revoked.has(w.endpointId)) w.finish('revoked');
      else if (!unchanged(bundle, w.ifNoneMatch, w.selector.noneIsChange)) w.finish(bundle);
    }
  }

  // Answers every held request (unchanged) so shutdown does not wait for long polls.
  onModuleDestroy(): void {
    for (const set of [...this.waiters.values()]) for (const w of [...set]) w.finish(undefined);
  }
}
