// The agent's sync loop: long-poll the bundle, verify, materialize, keep the last good bundle, repair drift, report.
import {
  boundStatusErrors,
  CONTRACT_VERSION,
  SHADOW_LAYER_HEADER,
  STATUS_MAX_ERROR_CHARS,
} from '@hookwarden/hook-core';
import { type ApiClient, ApiHttpError } from '../client/api-client';
import { endpointClient, migrateToKey } from '../client/identity';
import { Backoff, sleep } from '../client/backoff';
import {
  type Assignment,
  assignmentDecision,
  checkBinding,
  currentAssignment,
  type DiskBundle,
  ForeignBundle,
} from '../bundle/binding';
import {
  BundleRejected,
  manifestDigest,
  type VerifiedBundle,
  verifyAssignment,
  verifyBundle,
} from '@hookwarden/hook-core';
import type { LayerMeta } from '../materialize/layer';
import { clearThrottle, log, logThrottled, truncate } from '../log';
import { Layer, LayerBusy } from '../materialize/layer';
import { type AgentState, readAgentState, readLastGood, writeAgentState, writeLastGood } from '../state/agent-state';
import { type Credentials, readCredentials, writeCredentials } from '../state/credentials';
import { AGENT_VERSION } from '../version';
import { boundedReport } from './report';
import { ShadowSync } from './shadow-sync';
import { fetchTrustedKeys } from './trusted-keys';

export interface SyncOptions {
  stateDir: string;
  root: string;
  pollWaitSec: number;
  driftIntervalSec: number;
  maxBackoffMs: number;
  /** Largest response body the agent reads (bundle, key list, every answer); default 16 MiB. */
  maxResponseBytes?: number;
  /** Deadline of a response body once its headers arrived; default 60 s. */
  bodyTimeoutMs?: number;
  /** Signed statements (assignment, key list) issued longer ago than this are refused as stale; default 24 h. */
  maxStatementAgeMs?: number;
  stepDelayMs?: number;
  /** Upload counters reported in status (filled by the spool uploader). */
  counters?: () => { uploadsPending: number; recordsDropped: number };
}

interface StatusReport {
  /** The managed layer: applied, failed (refused a bundle), drifted, or pending (none applied yet). */
  state: 'applied' | 'failed' | 'drifted' | 'pending';
  appliedRevision: number | null;
  appliedDigest: string | null;
  targetRevision: number | null;
  errors: string[];
  files: Array<{ path: string; sha256: string | null }>;
  counters: { uploadsPending: number; recordsDropped: number };
  agentVersion: string;
  /** The policy/bundle contract this agent's engine understands (hook-core's CONTRACT_VERSION). */
  contractVersion: number;
  /** The shadow layer (filled in when sent). */
  shadow?: { releaseId: string | null; revision: number | null; digest: string | null; error: string | null };
}

export type ApplyOutcome = 'applied' | 'unchanged' | 'refused';

/** How often the daemon refreshes its key list even when no unknown key id shows up. */
const KEY_REFRESH_MS = 3600_000;

/** Default bound on the age of a signed statement the agent adopts. */
export const DEFAULT_MAX_STATEMENT_AGE_MS = 24 * 3600_000;

/** An answer faster than this that brought nothing new means the server did not hold the long poll. */
const FAST_ANSWER_MS = 1000;

export class Syncer {
  private creds!: Credentials;
  private client!: ApiClient;
  private readonly layer: Layer;
  private state!: AgentState;
  /** The group this endpoint is assigned to (from the newest signed assignment it adopted). */
  private assignment!: Assignment;
  /** The digest sent as If-None-Match: the applied bundle, or the last refused one (not fetched again). */
  private etag: string | null = null;
  private pending: StatusReport | null = null;
  private lock: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly backoff: Backoff;
  /** When the key list was last fetched (it is refreshed on start and every KEY_REFRESH_MS, so retirements arrive). */
  private keysRefreshedAt = 0;
  /** The last refusal queued for a report (a repeated refusal is not reported again). */
  private lastReportedError: string | null = null;
  /** The shadow layer's sync (its own long poll, same client, state and lock). */
  private shadow!: ShadowSync;
  /** The report being sent (flushes run one after the other). */
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: SyncOptions) {
    this.layer = new Layer({ root: opts.root, stepDelayMs: opts.stepDelayMs, stateDir: opts.stateDir });
    this.backoff = new Backoff(500, opts.maxBackoffMs);
  }

  // Runs `fn` after every earlier locked task (apply and drift repair never overlap).
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  // Loads credentials and state, recovers an interrupted apply, restores from the last good bundle if needed.
  async init(): Promise<void> {
    let creds = await readCredentials(this.opts.stateDir);
    if (!creds) throw new Error(`not enrolled: no credentials in ${this.opts.stateDir} (run hookwarden-agent enroll)`);
    // A bearer-enrolled endpoint registers its own key first (the bearer keeps working until the server took it).
    try {
      creds = await migrateToKey(this.opts.stateDir, creds);
    } catch (err) {
      log('warn', 'could not register the endpoint key yet; using the legacy credential', {
        error: truncate(String(err)),
      });
    }
    this.creds = creds;
    this.client = await endpointClient(this.opts.stateDir, creds, {
      userAgent: `hookwarden-agent/${AGENT_VERSION}`,
      maxBodyBytes: this.opts.maxResponseBytes,
      bodyTimeoutMs: this.opts.bodyTimeoutMs,
    });
    this.state = await readAgentState(this.opts.stateDir);
    this.assignment = currentAssignment(creds);
    this.shadow = new ShadowSync(
      {
        stateDir: this.opts.stateDir,
        state: this.state,
        client: () => this.client,
        trustedKeys: () => this.creds.publicKeys,
        refreshKeysFor: async (keyId) => {
          if (typeof keyId === 'string' && !this.creds.publicKeys.some((k) => k.kid === keyId))
            await this.refreshKeys();
        },
        assignment: () => this.assignment,
        refreshAssignment: () => this.refreshAssignment(),
        locked: (fn) => this.locked(fn),
        saveState: () => this.saveState(),
        shadowChanged: () => this.queueShadowReport(),
      },
      { root: this.opts.root, stepDelayMs: this.opts.stepDelayMs, maxBackoffMs: this.opts.maxBackoffMs },
    );
    await this.layer.recover();
    // Layers applied before per-group floors existed: the disk's revision is the floor of its group.
    const disk = this.diskBundle((await this.layer.current())?.meta ?? null);
    if (disk && this.state.revisionFloors[disk.groupId] === undefined) {
      this.state.revisionFloors[disk.groupId] = disk.revision;
    }
    await this.locked(() => this.restoreFromLastGood());
    this.etag = (await this.layer.current())?.meta.digest ?? null;
    await this.shadow.init();
  }

  /** The shadow layer's sync (tests drive it directly). */
  get shadowSync(): ShadowSync {
    return this.shadow;
  }

  // One request for the shadow bundle (`run --once`): applied, removed or refused as in the loop; a server older than
  // shadow releases (404) or an unreachable one changes nothing (logged).
  async pollShadowOnce(): Promise<string> {
    try {
      return await this.shadow.pollOnce(0, this.abort.signal);
    } catch (err) {
      log('warn', 'could not fetch the shadow bundle', { error: truncate(String(err)) });
      return 'unavailable';
    }
  }

  // Offline start and start-up check: the disk must hold the last good bundle (re-verified); repair it if not.
  private async restoreFromLastGood(): Promise<void> {
    const raw = await readLastGood(this.opts.stateDir);
    const disk = await this.layer.current();
    if (!raw) {
      if (disk) await this.checkDrift();
      return;
    }
    let v: VerifiedBundle;
    try {
      v = verifyBundle(raw, this.creds.publicKeys, null, null);
    } catch (err) {
      log('error', 'the last good bundle in the state directory does not verify; ignoring it', { error: String(err) });
      return;
    }
    const onDisk = this.diskBundle(disk?.meta ?? null);
    if (!onDisk || (onDisk.groupId === v.manifest.group.id && onDisk.revision < v.revision)) {
      await this.layer.apply(v);
      this.noteApplied(v);
      log('info', 'restored the managed layer from the last good bundle', { revision: v.revision });
      await this.saveState();
      this.queueReport('applied', v.revision, []);
      return;
    }
    await this.checkDrift();
  }

  // The group, revision and digest of a layer on disk (layers from before groups were recorded: the assigned group).
  private diskBundle(meta: LayerMeta | null): DiskBundle | null {
    if (!meta) return null;
    return { groupId: meta.groupId ?? this.assignment.groupId, revision: meta.revision, digest: meta.digest };
  }

  // Fetches this endpoint's signed assignment and adopts it when it is newer (a move); refusals are logged.
  private async refreshAssignment(): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.client.json('GET', '/v1/agent/assignment', {
        timeoutMs: 15_000,
        maxBodyBytes: 64 * 1024,
        signal: this.abort.signal,
      });
      const keyId = (raw as { keyId?: unknown } | null)?.keyId;
      if (typeof keyId === 'string' && !this.creds.publicKeys.some((k) => k.kid === keyId)) await this.refreshKeys();
    } catch (err) {
      logThrottled('assignment', 'warn', 'could not fetch the assignment', { error: truncate(String(err)) });
      return;
    }
    let next;
    try {
      next = verifyAssignment(raw, this.creds.publicKeys);
    } catch (err) {
      logThrottled('assignment-bad', 'error', 'refused an assignment statement', { error: truncate(String(err)) });
      return;
    }
    const decision = assignmentDecision(
      this.assignment,
      next,
      this.creds.endpointId,
      Date.now(),
      this.opts.maxStatementAgeMs ?? DEFAULT_MAX_STATEMENT_AGE_MS,
    );
    if (decision.kind === 'same') return;
    if (decision.kind === 'refuse') {
      logThrottled(`assignment:${decision.reason}`, 'error', 'refused an assignment statement', {
        reason: decision.reason,
      });
      return;
    }
    const from = this.assignment;
    this.assignment = { groupId: next.groupId, epoch: next.epoch, minRevision: next.minRevision };
    if (next.minRevision !== null) {
      this.state.revisionFloors[next.groupId] = Math.max(
        this.state.revisionFloors[next.groupId] ?? 0,
        next.minRevision,
      );
    }
    const { statement, signature, keyId } = raw as { statement: string; signature: string; keyId: string };
    this.creds = { ...this.creds, groupId: next.groupId, assignment: { statement, signature, keyId } };
    await writeCredentials(this.opts.stateDir, this.creds);
    await this.saveState();
    log('info', 'adopted a new group assignment', {
      fromGroupId: from.groupId,
      groupId: next.groupId,
      epoch: next.epoch,
    });
  }

  // Records an applied bundle in the agent state.
  private noteApplied(v: VerifiedBundle): void {
    const group = v.manifest.group.id;
    this.state.revisionFloors[group] = Math.max(this.state.revisionFloors[group] ?? 0, v.revision);
    this.state.appliedRevision = v.revision;
    this.state.appliedDigest = v.digest;
    this.state.policyVersion = v.manifest.policyVersion;
    this.state.appliedAt = new Date().toISOString();
    this.state.lastState = 'applied';
    this.state.lastError = null;
    this.lastReportedError = null;
    this.etag = v.digest;
  }

  private async saveState(): Promise<void> {
    await writeAgentState(this.opts.stateDir, this.state);
  }

  // Builds the status report from the disk and queues it for sending.
  private queueReport(state: StatusReport['state'], targetRevision: number | null, errors: string[]): void {
    this.state.lastTargetRevision = targetRevision;
    this.pending = {
      state,
      appliedRevision: null,
      appliedDigest: null,
      targetRevision,
      errors: boundStatusErrors(errors),
      files: [],
      counters: this.opts.counters?.() ?? { uploadsPending: 0, recordsDropped: 0 },
      agentVersion: AGENT_VERSION,
      contractVersion: CONTRACT_VERSION,
    };
  }

  // The shadow layer changed: queues a report (the last managed-layer report again, with the shadow layer as it is now,
  // filled in when sent). A queued report is replaced by a copy, so one already on its way is sent again after it.
  private queueShadowReport(): void {
    if (this.pending) {
      this.pending = { ...this.pending };
      return;
    }
    const s = this.state;
    const errors = s.lastState === 'failed' && s.lastError ? [s.lastError] : s.lastState === 'drifted' ? s.drift : [];
    this.queueReport(s.lastState ?? 'pending', s.lastTargetRevision, errors);
  }

  // Sends the queued report (with the current on-disk digests); kept for the next try if the server is unreachable.
  // One send at a time (the managed and the shadow loop both flush): reports arrive in the order of what they say.
  flushReport(): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  // One flush of the queued report.
  private async flushOnce(): Promise<void> {
    const report = this.pending;
    if (!report) return;
    const disk = await this.layer.inspect();
    report.appliedRevision = disk.meta?.revision ?? null;
    report.appliedDigest = disk.meta?.digest ?? null;
    report.files = disk.files;
    const shadow = this.state.shadow;
    report.shadow = {
      releaseId: shadow?.releaseId ?? null,
      revision: shadow?.revision ?? null,
      digest: shadow?.digest ?? null,
      error: this.state.shadowError === null ? null : truncate(this.state.shadowError, STATUS_MAX_ERROR_CHARS),
    };
    try {
      await this.client.send('POST', '/v1/agent/status', {
        body: boundedReport(report),
        timeoutMs: 15_000,
        signal: this.abort.signal,
      });
      if (this.pending === report) this.pending = null;
      this.state.lastCheckInAt = new Date().toISOString();
      await this.saveState();
    } catch (err) {
      if (
        err instanceof ApiHttpError &&
        err.status >= 400 &&
        err.status < 500 &&
        err.status !== 429 &&
        err.status !== 401
      ) {
        this.pending = null;
      }
      logThrottled('report', 'warn', 'could not send the status report', { error: String(err) });
    }
  }

  // Adopts the server's key list when a trusted key signed it, its sequence is not below the one held and it is
  // fresh; a refused list changes nothing (logged at most once a minute).
  private async refreshKeys(): Promise<void> {
    this.keysRefreshedAt = Date.now();
    try {
      const d = await fetchTrustedKeys(
        this.client,
        this.creds.publicKeys,
        this.creds.keyListSequence ?? 0,
        this.opts.maxStatementAgeMs ?? DEFAULT_MAX_STATEMENT_AGE_MS,
        this.abort.signal,
      );
      if (d.kind === 'refuse') {
        logThrottled(`keys:${d.reason}`, 'error', 'refused the key list', { reason: truncate(d.reason) });
        return;
      }
      const same =
        d.sequence === this.creds.keyListSequence && JSON.stringify(d.keys) === JSON.stringify(this.creds.publicKeys);
      if (same) return;
      const dropped = this.creds.publicKeys.filter((k) => !d.keys.some((n) => n.kid === k.kid)).map((k) => k.kid);
      this.creds = { ...this.creds, publicKeys: d.keys, keyListSequence: d.sequence };
      await writeCredentials(this.opts.stateDir, this.creds);
      log('info', 'adopted the key list', { sequence: d.sequence, keys: d.keys.map((k) => k.kid), dropped });
    } catch (err) {
      logThrottled('keys', 'warn', 'could not refresh the trusted keys', { error: truncate(String(err)) });
    }
  }

  // Verifies and applies a bundle from the server; a refused bundle changes nothing and is reported failed.
  async applyRaw(raw: unknown): Promise<ApplyOutcome> {
    const keyId = (raw as { keyId?: unknown } | null)?.keyId;
    if (typeof keyId === 'string' && !this.creds.publicKeys.some((k) => k.kid === keyId)) await this.refreshKeys();
    return this.locked(async () => {
      const disk = await this.layer.current();
      let revision: number | null = null;
      try {
        // Signature and content first; then the binding: the assigned group (a bundle of another group makes the
        // agent ask for its assignment once: a move is adopted only from a newer signed statement) and its floor.
        const v = verifyBundle(raw, this.creds.publicKeys, null, null);
        revision = v.revision;
        if (v.manifest.group.id !== this.assignment.groupId) await this.refreshAssignment();
        checkBinding(v, this.assignment, this.state.revisionFloors, this.diskBundle(disk?.meta ?? null));
        if (disk && disk.meta.digest === v.digest) {
          this.etag = v.digest;
          return 'unchanged';
        }
        await this.layer.apply(v);
        await writeLastGood(this.opts.stateDir, v.raw);
        this.noteApplied(v);
        await this.saveState();
        log('info', 'applied bundle', {
          revision: v.revision,
          policyVersion: v.manifest.policyVersion,
          digest: v.digest,
        });
        this.queueReport('applied', v.revision, []);
        return 'applied';
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const rev = err instanceof BundleRejected ? (err.revision ?? revision) : revision;
        const manifestText = (raw as { manifest?: unknown } | null)?.manifest;
        // A refused bundle is not fetched again (its digest becomes If-None-Match) — except another group's: after a
        // move whose assignment could not be fetched yet, the same bundle must be tried again (paced by the backoff).
        // Nor is one whose switch was only postponed (managed hooks running, a file in use on Windows).
        if (typeof manifestText === 'string' && !(err instanceof ForeignBundle) && !(err instanceof LayerBusy))
          this.etag = manifestDigest(manifestText);
        const repeated = this.state.lastState === 'failed' && this.state.lastError === message;
        this.state.lastState = 'failed';
        this.state.lastError = message;
        await this.saveState();
        logThrottled(`refused:${truncate(message, 200)}`, 'error', 'refused bundle', {
          revision: rev,
          error: truncate(message),
        });
        // The same refusal again (a server that keeps sending it) is reported once, not on every attempt.
        if (!repeated || this.lastReportedError !== message) this.queueReport('failed', rev, [message]);
        this.lastReportedError = message;
        return 'refused';
      }
    });
  }

  // Compares the disk with the ownership manifest; restores from the last good bundle and reports drift.
  async checkDrift(): Promise<string[]> {
    const r = await this.layer.inspect();
    if (!r.meta || r.drift.length === 0) {
      if (this.state.drift.length > 0) {
        this.state.drift = [];
        await this.saveState();
      }
      return [];
    }
    log('warn', 'managed layer drifted from its manifest; restoring', { drift: r.drift });
    const raw = await readLastGood(this.opts.stateDir);
    try {
      const v = verifyBundle(raw, this.creds.publicKeys, null, null);
      await this.layer.apply(v);
      this.state.driftRepairedAt = new Date().toISOString();
    } catch (err) {
      log('error', 'could not restore the managed layer', { error: String(err) });
    }
    this.state.drift = r.drift;
    this.state.lastState = 'drifted';
    await this.saveState();
    this.queueReport('drifted', r.meta.revision, r.drift);
    return r.drift;
  }

  // One request for the bundle (long poll when waitSec > 0); returns what happened.
  async pollOnce(waitSec: number): Promise<ApplyOutcome | 'not-modified' | 'none'> {
    // The shadow layer held, so the server ends this poll when it should change too (one poll per agent).
    const headers: Record<string, string> = { [SHADOW_LAYER_HEADER]: this.shadow.heldTag() };
    if (this.etag) headers['if-none-match'] = `"${this.etag}"`;
    if (waitSec > 0) headers.prefer = `wait=${waitSec}`;
    const res = await this.client.request('GET', '/v1/agent/bundle', {
      headers,
      accept: [304, 204],
      timeoutMs: waitSec * 1000 + 15_000,
      signal: this.abort.signal,
    });
    this.state.lastCheckInAt = new Date().toISOString();
    this.shadow.onManagedAnswer(res.headers.get(SHADOW_LAYER_HEADER));
    if (res.status === 304 || res.status === 204) {
      await res.body?.cancel();
      return res.status === 304 ? 'not-modified' : 'none';
    }
    return this.applyRaw(await this.client.readJson(res, 'GET /v1/agent/bundle', { signal: this.abort.signal }));
  }

  // The daemon loop: long polls of the managed and the shadow layer with backoff until stop(); drift checks on a timer.
  async run(): Promise<void> {
    if (this.pending) await this.flushReport();
    const timer = setInterval(() => {
      void this.locked(() => this.checkDrift())
        .then(() => this.locked(() => this.shadow.restore()))
        .then(() => this.flushReport())
        .catch((err: unknown) => log('error', 'drift check failed', { error: String(err) }));
    }, this.opts.driftIntervalSec * 1000);
    try {
      await Promise.all([
        this.runManaged(),
        this.shadow.run(
          this.opts.pollWaitSec,
          this.abort.signal,
          () => this.stopped,
          () => this.flushReport(),
        ),
      ]);
    } finally {
      clearInterval(timer);
    }
  }

  // The managed layer's loop.
  private async runManaged(): Promise<void> {
    while (!this.stopped) {
      if (Date.now() - this.keysRefreshedAt >= KEY_REFRESH_MS) await this.refreshKeys();
      const started = Date.now();
      let delay: number | null = null;
      try {
        const outcome = await this.pollOnce(this.opts.pollWaitSec);
        clearThrottle('poll');
        if (outcome === 'refused') {
          delay = this.backoff.next();
        } else if (outcome !== 'applied' && Date.now() - started < FAST_ANSWER_MS) {
          // Nothing new and the server did not hold the long poll: pace the polls like errors (a server that
          // ignores If-None-Match or Prefer must not make the agent spin).
          delay = this.backoff.next();
        } else {
          this.backoff.reset();
        }
      } catch (err) {
        if (this.stopped) break;
        const retryAfter = err instanceof ApiHttpError ? err.retryAfterMs : null;
        delay = this.backoff.next(retryAfter);
        const status = err instanceof ApiHttpError ? err.status : null;
        if (err instanceof ApiHttpError && err.code === 'endpoint_pending') {
          logThrottled('pending', 'warn', 'awaiting approval: an admin must admit this endpoint', {
            endpointId: this.creds.endpointId,
            retryInMs: delay,
          });
        } else
          logThrottled(`poll:${status ?? 'net'}`, 'warn', 'bundle request failed; backing off', {
            error: truncate(err instanceof Error ? err.message : String(err)),
            status,
            retryInMs: delay,
          });
      }
      await this.flushReport();
      if (delay !== null && !this.stopped) await sleep(delay, this.abort.signal);
    }
  }

  // Ends the loop (SIGTERM/SIGINT): aborts the held request.
  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}
