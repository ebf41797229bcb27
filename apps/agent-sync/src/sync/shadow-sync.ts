// The agent's shadow sync (issue 27): long-polls GET /v1/agent/shadow-bundle beside the managed layer's poll, verifies
// what it gets as a shadow bundle (hook-core: signature in the shadow context, shadow manifest, the shadow layer's
// content rules), binds it to the endpoint like a managed bundle (the assigned group, a per-group floor of shadow
// revisions against replays) and switches it into the shadow layer — or removes the layer on 204 (promoted, aborted,
// ring not reached). Nothing here can write the enforced layer: ShadowLayer confines every write to shadow/.
import { BundleRejected, manifestDigest, type VerifiedBundle, verifyShadowBundle } from '@hookwarden/hook-core';
import { type Assignment, checkBinding, type DiskBundle, ForeignBundle } from '../bundle/binding';
import { type ApiClient, ApiHttpError } from '../client/api-client';
import { Backoff, sleep } from '../client/backoff';
import { clearThrottle, log, logThrottled, truncate } from '../log';
import { LayerBusy } from '../materialize/layer';
import { ShadowLayer } from '../materialize/shadow-layer';
import { type AgentState, readLastGoodShadow, writeLastGoodShadow } from '../state/agent-state';
import type { TrustedKey } from '@hookwarden/hook-core';

export const SHADOW_BUNDLE_PATH = '/v1/agent/shadow-bundle';

/** What the shadow sync needs from the agent's sync loop (one state, one lock, one client). */
export interface ShadowHost {
  readonly stateDir: string;
  readonly state: AgentState;
  client(): ApiClient;
  trustedKeys(): readonly TrustedKey[];
  /** Refreshes the key list when a bundle names an unknown key. */
  refreshKeysFor(keyId: unknown): Promise<void>;
  assignment(): Assignment;
  refreshAssignment(): Promise<void>;
  locked<T>(fn: () => Promise<T>): Promise<T>;
  saveState(): Promise<void>;
  /** The shadow layer changed (applied, refused, removed): the next status report says so. */
  shadowChanged(): void;
}

export type ShadowOutcome = 'applied' | 'unchanged' | 'refused' | 'removed' | 'none' | 'not-modified';

/** An answer faster than this that brought nothing new means the server did not hold the long poll. */
const FAST_ANSWER_MS = 1000;
/** A server without the shadow route (older than shadow releases) is asked again this rarely. */
const NO_ROUTE_RETRY_MS = 10 * 60_000;

export class ShadowSync {
  readonly layer: ShadowLayer;
  /** The digest sent as If-None-Match: the shadow bundle on disk, or the last refused one (not fetched again). */
  private etag: string | null = null;
  private readonly backoff: Backoff;
  /** Whether the managed poll's answers name the shadow layer (one poll per agent); undefined until its first answer. */
  private announced: boolean | undefined = undefined;
  /** The managed poll named a shadow layer other than the one held: fetch it. */
  private due = false;
  /** Wakes the loop waiting for the managed poll's next answer. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly host: ShadowHost,
    opts: { root: string; stepDelayMs?: number; maxBackoffMs: number },
  ) {
    this.layer = new ShadowLayer({ root: opts.root, stepDelayMs: opts.stepDelayMs, stateDir: host.stateDir });
    this.backoff = new Backoff(500, opts.maxBackoffMs);
  }

  // Start-up: finishes an interrupted switch or removal, then makes the disk hold the shadow layer the state names
  // (restored from the last good shadow bundle, re-verified) or none.
  async init(): Promise<void> {
    await this.layer.recover();
    await this.host.locked(() => this.restore());
  }

  // The shadow layer on disk as a binding check sees it.
  private async disk(): Promise<DiskBundle | null> {
    const cur = await this.layer.current();
    const s = this.host.state.shadow;
    return cur && s ? { groupId: s.groupId, revision: cur.revision, digest: cur.digest } : null;
  }

  // Makes the disk match the state: the recorded shadow layer restored (or re-applied after drift), or removed.
  async restore(): Promise<void> {
    const s = this.host.state;
    const cur = await this.layer.current();
    if (!s.shadow) {
      if (cur) {
        await this.layer.remove();
        log('info', 'removed a shadow layer the agent state does not name');
      }
      this.etag = null;
      return;
    }
    const drift = cur?.digest === s.shadow.digest ? (await this.layer.layer.inspect()).drift : ['missing'];
    if (drift.length > 0) {
      try {
        const v = verifyShadowBundle(await readLastGoodShadow(this.host.stateDir), this.host.trustedKeys());
        if (v.digest !== s.shadow.digest) throw new Error('the last good shadow bundle is not the one applied');
        await this.layer.apply(v);
        log('info', 'restored the shadow layer from the last good shadow bundle', { revision: v.revision, drift });
      } catch (err) {
        log('error', 'could not restore the shadow layer; removing it', { error: truncate(String(err)) });
        await this.layer.remove();
        s.shadow = null;
        await this.host.saveState();
        this.host.shadowChanged();
      }
    }
    this.etag = s.shadow?.digest ?? null;
  }

  // Verifies and applies a shadow bundle; a refused one changes nothing on disk and is reported.
  async applyRaw(raw: unknown): Promise<ShadowOutcome> {
    await this.host.refreshKeysFor((raw as { keyId?: unknown } | null)?.keyId);
    return this.host.locked(async () => {
      let revision: number | null = null;
      try {
        const v: VerifiedBundle = verifyShadowBundle(raw, this.host.trustedKeys());
        revision = v.revision;
        if (v.manifest.group.id !== this.host.assignment().groupId) await this.host.refreshAssignment();
        // Bound like a managed bundle: the assigned group and its shadow floor (the assignment's minRevision is the
        // managed layer's, not a floor of shadow revisions).
        checkBinding(
          v,
          { ...this.host.assignment(), minRevision: null },
          this.host.state.shadowFloors,
          await this.disk(),
        );
        const s = this.host.state;
        if (s.shadow?.digest === v.digest && (await this.layer.current())?.digest === v.digest) {
          this.etag = v.digest;
          return 'unchanged';
        }
        await this.layer.apply(v);
        await writeLastGoodShadow(this.host.stateDir, v.raw);
        const group = v.manifest.group.id;
        s.shadowFloors[group] = Math.max(s.shadowFloors[group] ?? 0, v.revision);
        s.shadow = {
          releaseId: v.shadowReleaseId!,
          groupId: group,
          revision: v.revision,
          digest: v.digest,
          appliedAt: new Date().toISOString(),
        };
        s.shadowError = null;
        this.etag = v.digest;
        await this.host.saveState();
        log('info', 'applied shadow bundle', { releaseId: v.shadowReleaseId, revision: v.revision, digest: v.digest });
        this.host.shadowChanged();
        return 'applied';
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const manifestText = (raw as { manifest?: unknown } | null)?.manifest;
        // Not fetched again (its digest becomes If-None-Match), except another group's (the assignment may still
        // arrive) and a postponed switch.
        if (typeof manifestText === 'string' && !(err instanceof ForeignBundle) && !(err instanceof LayerBusy))
          this.etag = manifestDigest(manifestText);
        const rev = err instanceof BundleRejected ? (err.revision ?? revision) : revision;
        logThrottled(`shadow-refused:${truncate(message, 200)}`, 'error', 'refused shadow bundle', {
          revision: rev,
          error: truncate(message),
        });
        if (this.host.state.shadowError !== message) {
          this.host.state.shadowError = message;
          await this.host.saveState();
          this.host.shadowChanged();
        }
        return 'refused';
      }
    });
  }

  // No shadow layer for this endpoint (204): removes the one on disk, if any.
  async removeLayer(): Promise<ShadowOutcome> {
    return this.host.locked(async () => {
      const s = this.host.state;
      const had = s.shadow !== null || (await this.layer.current()) !== null;
      this.etag = null;
      if (!had && s.shadowError === null) return 'none';
      await this.layer.remove();
      await writeLastGoodShadow(this.host.stateDir, null);
      const releaseId = s.shadow?.releaseId ?? null;
      s.shadow = null;
      s.shadowError = null;
      await this.host.saveState();
      if (had) log('info', 'removed the shadow layer (no shadow release for this endpoint)', { releaseId });
      this.host.shadowChanged();
      return had ? 'removed' : 'none';
    });
  }

  // The shadow layer this agent holds as the managed poll names it (SHADOW_LAYER_HEADER): the If-None-Match ETag of
  // the shadow route, or `none`.
  heldTag(): string {
    return this.etag ? `"${this.etag}"` : 'none';
  }

  // After each answer of the managed poll: the shadow layer it names (null: a server without the one-poll protocol,
  // whose shadow route this agent then long-polls itself).
  onManagedAnswer(tag: string | null): void {
    this.announced = tag !== null;
    if (tag !== null && tag !== this.heldTag()) this.due = true;
    this.wake?.();
  }

  // Resolves at the managed poll's next answer, or when `signal` aborts.
  private nextManagedAnswer(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wake = done;
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }

  // One request for the shadow bundle (long poll when waitSec > 0).
  async pollOnce(waitSec: number, signal: AbortSignal): Promise<ShadowOutcome> {
    const headers: Record<string, string> = {};
    if (this.etag) headers['if-none-match'] = `"${this.etag}"`;
    if (waitSec > 0) headers.prefer = `wait=${waitSec}`;
    const client = this.host.client();
    const res = await client.request('GET', SHADOW_BUNDLE_PATH, {
      headers,
      accept: [304, 204],
      timeoutMs: waitSec * 1000 + 15_000,
      signal,
    });
    if (res.status === 304) {
      await res.body?.cancel();
      return 'not-modified';
    }
    if (res.status === 204) {
      await res.body?.cancel();
      return this.removeLayer();
    }
    return this.applyRaw(await client.readJson(res, `GET ${SHADOW_BUNDLE_PATH}`, { signal }));
  }

  // The shadow loop until `stopped()`; `after` runs after every answer (status report). Against a server that names
  // the shadow layer on the managed poll, it fetches the shadow bundle (without waiting) only when that names another
  // one than held: one long poll per agent. Against an older server, it long-polls the shadow route itself. It waits
  // for the managed poll's first answer to know which.
  async run(waitSec: number, signal: AbortSignal, stopped: () => boolean, after: () => Promise<void>): Promise<void> {
    while (!stopped()) {
      if (this.announced !== false && !this.due) {
        await this.nextManagedAnswer(signal);
        continue;
      }
      const announced = this.announced === true;
      this.due = false;
      const started = Date.now();
      let delay: number | null = null;
      try {
        const outcome = await this.pollOnce(announced ? 0 : waitSec, signal);
        clearThrottle('shadow-poll');
        const news = outcome === 'applied' || outcome === 'removed';
        // Told to fetch, an answer at once is expected; a refusal is paced either way.
        if (outcome === 'refused' || (!announced && !news && Date.now() - started < FAST_ANSWER_MS))
          delay = this.backoff.next();
        else this.backoff.reset();
      } catch (err) {
        if (stopped()) break;
        // Told to fetch: try again after the backoff (the managed poll may not name it again before its next answer).
        if (announced) this.due = true;
        const status = err instanceof ApiHttpError ? err.status : null;
        // A server older than shadow releases has no such route: ask again rarely, and say so once.
        const retryAfter = status === 404 ? NO_ROUTE_RETRY_MS : err instanceof ApiHttpError ? err.retryAfterMs : null;
        delay = this.backoff.next(retryAfter);
        logThrottled(`shadow-poll:${status ?? 'net'}`, 'warn', 'shadow bundle request failed; backing off', {
          error: truncate(err instanceof Error ? err.message : String(err)),
          status,
          retryInMs: delay,
        });
      }
      await after();
      if (delay !== null && !stopped()) await sleep(delay, signal);
    }
  }
}
