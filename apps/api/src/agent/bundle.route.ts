// GET /v1/agent/bundle (the managed layer) and GET /v1/agent/shadow-bundle (the shadow layer), served by plain Node
// handlers in front of Fastify (the hot path: every agent revalidates or holds a long poll here; Fastify + Nest
// per-request work cost more than half its throughput and memory). One implementation for both: same authentication
// (AuthService), same long poll and wake-ups, same error shape, documented in OpenAPI by bundle.openapi.ts.
import type http from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SHADOW_LAYER_HEADER } from '@hookwarden/hook-core';
import type { AuthRule } from '../auth/auth.decorators';
import { AuthRateLimitService } from '../auth/auth-rate-limit.service';
import { AuthService } from '../auth/auth.service';
import { parseSessionId, sessionKeyMatches } from '../auth/agent-session';
import {
  type AgentPrincipal,
  AgentSignatureService,
  isSigned,
  signatureRequired,
} from '../auth/agent-signature.service';
import { presentedCredential } from '../auth/credential-sources';
import { clientAddress, type TrustFunction, trustFunction } from '../common/client-address';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ApiError, type ErrorCode } from '../common/api-error';
import { type RawRoute, sendRawError } from '../common/raw-router';
import { bundleFor, type GroupBundleState, type ServedBundle, shadowBundleFor } from '../releases/rollout';
import { BUNDLE_PATH, SHADOW_BUNDLE_PATH } from './bundle.openapi';
import { type BundleSelector, BundleCacheService, unchanged } from './bundle-cache.service';

/** Longest long poll a client may ask for. */
export const MAX_WAIT_SEC = 60;

// Parses `Prefer: wait=N` (RFC 7240) into seconds, capped at MAX_WAIT_SEC; 0 when absent or invalid.
export function preferWait(header: string | string[] | undefined): number {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return 0;
  const m = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(text);
  return m ? Math.min(Number(m[1]), MAX_WAIT_SEC) : 0;
}

/** Long polls asking to wait at least this many seconds are answered at a random moment of their last fifth. */
export const HOLD_JITTER_FROM_SEC = 10;

// How long to hold a poll that asked to wait `waitSec`, in ms: a short one the whole wait; a long one ends at a random
// moment of its last fifth, so polls that began together (a release fans out to every agent at once) do not all come
// back together at each timeout after (seen in bench:scale: 30,000 polls begun together came back in the same second).
export function holdMs(waitSec: number, random: () => number = Math.random): number {
  const ms = waitSec * 1000;
  return waitSec < HOLD_JITTER_FROM_SEC ? ms : ms - Math.floor(random() * ms * 0.2);
}

// The one-poll header's (SHADOW_LAYER_HEADER, see bundle.openapi.ts) value for a shadow bundle (`none`: no shadow
// layer for the endpoint).
export function shadowTag(bundle: ServedBundle | null): string {
  return bundle?.etag ?? 'none';
}

// The shadow layer an agent says it holds: `none` or one quoted ETag; undefined for anything else (ignored).
export function parseShadowHeader(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  return v === 'none' || /^"[\x21\x23-\x7e]{1,200}"$/.test(v) ? v : undefined;
}

/** A held managed poll's view of both layers: "changed" once the managed bundle or the shadow layer differs. */
interface PairView extends ServedBundle {
  managed: ServedBundle | null;
  shadow: string;
}
/** The ETag a pair view carries while neither layer changed (what the held request's If-None-Match names). */
const PAIR_HELD = '"held"';

const UNAUTHORIZED = { 'www-authenticate': 'Bearer' };

/** An authenticated agent of a request (`secret`: the legacy bearer, '' for a signed request). */
interface Agent {
  endpointId: string;
  groupId: string;
  secret: string;
}

@Injectable()
export abstract class LayerBundleRoute implements RawRoute, BundleSelector {
  protected readonly logger = new Logger('BundleRoute');
  readonly methods = ['GET', 'HEAD'] as const;
  abstract readonly path: string;
  abstract readonly noneIsChange: boolean;
  /** True on the managed route: it names the shadow layer to agents that send SHADOW_LAYER_HEADER (one poll each). */
  protected readonly announcesShadow: boolean = false;
  readonly authRule: AuthRule = { kind: 'agent' };

  /** The endpoint's bundle of this route under its group's state (null: none for it). */
  abstract select(state: GroupBundleState, endpointId: string): ServedBundle | null;

  private readonly trust: TrustFunction;

  constructor(
    private readonly auth: AuthService,
    private readonly cache: BundleCacheService,
    private readonly rateLimit: AuthRateLimitService,
    private readonly signatures: AgentSignatureService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.trust = trustFunction(config.TRUST_PROXY);
  }

  // Subscribes to bundle events; called once by the HTTP application when it mounts this route.
  start(): void {
    // Not awaited: the subscription completes when Redis answers (ioredis queues it meanwhile).
    this.cache.start().catch((err: unknown) => this.logger.warn({ err }, 'could not subscribe to bundle events yet'));
  }

  // Sends the one error shape.
  private fail(
    res: http.ServerResponse,
    requestId: string,
    status: number,
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    sendRawError(res, status, code, message, requestId, headers);
  }

  // True while the request's credential still names the endpoint: the session's key is still its key and it is still
  // admitted (signed requests), or the bearer still resolves to it (legacy).
  private async stillValid(req: http.IncomingMessage, secret: string, endpointId: string): Promise<boolean> {
    if (!secret) {
      const claims = parseSessionId(/keyid="([^"]{1,256})"/.exec(String(req.headers['signature-input']))?.[1] ?? '');
      const identity = claims ? await this.auth.identity(endpointId) : null;
      return (
        !!claims &&
        !!identity &&
        !identity.revoked &&
        identity.admission === 'active' &&
        sessionKeyMatches(claims, identity.keyId)
      );
    }
    const principal = await this.auth.authenticate(secret);
    return principal?.kind === 'agent' && principal.endpointId === endpointId;
  }

  // Ends a held request whose endpoint's credential was rotated: 401 for the old credential, else unchanged (the
  // agent polls again at once).
  private async recheck(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    secret: string,
    endpointId: string,
    bundle: ServedBundle | null,
    waited: number,
    extra: http.OutgoingHttpHeaders,
  ): Promise<void> {
    let valid: boolean;
    try {
      valid = await this.stillValid(req, secret, endpointId);
    } catch (err) {
      this.logger.warn({ err, requestId }, 'credential lookup failed');
      return this.fail(res, requestId, 503, 'unavailable', 'Credential check unavailable; retry later', {
        'retry-after': '5',
      });
    }
    if (valid) return this.answer(res, requestId, bundle, false, waited, extra);
    this.fail(res, requestId, 401, 'unauthorized', 'Missing or invalid credentials', UNAUTHORIZED);
  }

  // Sends a bundle (200), its ETag (304) or nothing (204).
  private answer(
    res: http.ServerResponse,
    requestId: string,
    bundle: ServedBundle | null,
    changed: boolean,
    waited: number,
    extra: http.OutgoingHttpHeaders = {},
  ): void {
    if (res.headersSent || res.destroyed) return;
    const headers: http.OutgoingHttpHeaders = { 'x-request-id': requestId, 'cache-control': 'no-cache', ...extra };
    if (waited > 0) headers['preference-applied'] = `wait=${waited}`;
    if (!bundle) {
      res.writeHead(204, headers).end();
      return;
    }
    headers.etag = bundle.etag;
    if (!changed) {
      res.writeHead(304, headers).end();
      return;
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(bundle.body);
    res.writeHead(200, headers).end(bundle.body);
  }

  // Refuses with a 401 counted against the client's address (429 once over the limit).
  private async refuseCounted(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    err: ApiError,
  ): Promise<void> {
    const wait = await this.rateLimit.recordFailure(clientAddress(req, this.trust));
    if (wait > 0) {
      return this.fail(
        res,
        requestId,
        429,
        'rate_limited',
        `Too many failed authentication attempts from this address; retry in ${wait} s`,
        { 'retry-after': String(wait) },
      );
    }
    this.fail(res, requestId, err.status, err.code, err.message, err.headers);
  }

  // Answers a signed request that failed its checks: a 401 counted against the address, the refusal, or 503 when the
  // check itself failed.
  private async refuseSigned(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    err: unknown,
  ): Promise<void> {
    if (err instanceof ApiError && err.status === 401) await this.refuseCounted(req, res, requestId, err);
    else if (err instanceof ApiError) this.fail(res, requestId, err.status, err.code, err.message, err.headers);
    else {
      this.logger.warn({ err, requestId }, 'signature check failed');
      this.fail(res, requestId, 503, 'unavailable', 'Credential check unavailable; retry later', {
        'retry-after': '5',
      });
    }
  }

  // The agent of a legacy bearer request (an endpoint without a key); null when an answer was sent.
  private async bearerAgentOf(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
  ): Promise<Agent | null> {
    // The Authorization header only (no session cookie, no query parameter on the agents' route).
    const secret = presentedCredential(req.headers)?.secret ?? '';
    // A cached credential answers without a single await.
    let principal = secret ? this.auth.cached(secret) : null;
    try {
      if (principal === undefined) principal = await this.auth.authenticate(secret);
    } catch (err) {
      this.logger.warn({ err, requestId }, 'credential lookup failed');
      this.fail(res, requestId, 503, 'unavailable', 'Credential check unavailable; retry later', {
        'retry-after': '5',
      });
      return null;
    }
    if (!principal) {
      await this.refuseCounted(req, res, requestId, signatureRequired());
      return null;
    }
    if (principal.kind !== 'agent') {
      this.fail(res, requestId, 403, 'forbidden', 'This route is for endpoint agents only');
      return null;
    }
    return { endpointId: principal.endpointId, groupId: principal.groupId, secret };
  }

  // The handler: authenticate (a session-signed request, or legacy bearer of an endpoint without a key), resolve from
  // the cache, answer or hold. A signed request of a cached endpoint and group costs one promise: its nonce check.
  handle(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): void | Promise<void> {
    // An endpoint moved, re-keyed or revoked while this request authenticated may carry a stale principal whose wake-up
    // already went by: such a request is answered at once instead of held (the agent polls again, re-authenticated).
    const invalidations = this.auth.invalidations;
    if (isSigned(req.headers)) {
      let verified: Promise<AgentPrincipal>;
      try {
        verified = this.signatures.verifySessionQuick(req);
      } catch (err) {
        return this.refuseSigned(req, res, requestId, err);
      }
      return verified.then(
        (p) =>
          this.serve(req, res, requestId, { endpointId: p.endpointId, groupId: p.groupId, secret: '' }, invalidations),
        (err: unknown) => this.refuseSigned(req, res, requestId, err),
      );
    }
    return this.bearerAgentOf(req, res, requestId).then((agent) =>
      agent ? this.serve(req, res, requestId, agent, invalidations) : undefined,
    );
  }

  // Serves an authenticated agent: synchronously when its group's bundle state is cached, else after loading it.
  private serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    agent: Agent,
    invalidations: number,
  ): void | Promise<void> {
    const state = this.cache.stateNow(agent.groupId);
    if (state === undefined) return this.serveLoading(req, res, requestId, agent, invalidations);
    this.decide(req, res, requestId, agent, invalidations, state, this.cache.gen(agent.groupId));
  }

  // Loads the group's bundle state, then decides (again when the group changed while loading).
  private async serveLoading(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    agent: Agent,
    invalidations: number,
  ): Promise<void> {
    for (;;) {
      const gen = this.cache.gen(agent.groupId);
      let state = this.cache.stateNow(agent.groupId);
      try {
        state ??= await this.cache.state(agent.groupId);
      } catch (err) {
        this.logger.warn({ err, groupId: agent.groupId, requestId }, 'bundle state unavailable');
        return this.fail(res, requestId, 503, 'unavailable', 'Bundle state unavailable; retry later', {
          'retry-after': '5',
        });
      }
      if (this.decide(req, res, requestId, agent, invalidations, state, gen)) return;
    }
  }

  // Answers (200, 304, 204, 503) or holds the request; false when the group changed since `gen` (decide again).
  private decide(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    agent: Agent,
    invalidations: number,
    state: GroupBundleState,
    gen: number,
  ): boolean {
    const { groupId, endpointId, secret } = agent;
    const inm = req.headers['if-none-match'];
    const wait = preferWait(req.headers.prefer);
    const bundle = this.select(state, endpointId);
    // The shadow layer the agent holds, when it speaks the one-poll protocol (managed route only).
    const heldShadow = this.announcesShadow ? parseShadowHeader(req.headers[SHADOW_LAYER_HEADER]) : undefined;
    const shadowNow = heldShadow === undefined ? undefined : shadowTag(shadowBundleFor(state, endpointId));
    const extra: http.OutgoingHttpHeaders = shadowNow === undefined ? {} : { [SHADOW_LAYER_HEADER]: shadowNow };
    if (!unchanged(bundle, inm, this.noneIsChange)) return (this.answer(res, requestId, bundle, true, 0, extra), true);
    if (wait === 0 || shadowNow !== heldShadow) return (this.answer(res, requestId, bundle, false, 0, extra), true);
    if (gen !== this.cache.gen(groupId)) return false; // changed while loading: evaluate again before holding
    if (invalidations !== this.auth.invalidations) return (this.answer(res, requestId, bundle, false, 0, extra), true);
    if (this.cache.full) {
      const retry = String(5 + Math.floor(Math.random() * 10));
      this.fail(res, requestId, 503, 'unavailable', 'Too many held requests on this instance', {
        'retry-after': retry,
      });
      return true;
    }
    const pair = heldShadow === undefined ? null : this.pairSelector(inm, heldShadow);
    const cancel = this.cache.hold(
      groupId,
      {
        endpointId,
        ifNoneMatch: pair ? PAIR_HELD : inm,
        selector: pair ?? this,
        finish: (next) => {
          if (next === undefined) return this.answer(res, requestId, bundle, false, wait, extra);
          if (next === 'revoked') {
            return this.fail(res, requestId, 401, 'unauthorized', 'Missing or invalid credentials', UNAUTHORIZED);
          }
          if (next === 'recheck') {
            return void this.recheck(req, res, requestId, secret, endpointId, bundle, wait, extra);
          }
          if (!pair) return this.answer(res, requestId, next, true, wait);
          // Either layer changed: the managed bundle if it did (else unchanged), with the shadow layer to hold.
          const view = next as PairView;
          const managedChanged = !unchanged(view.managed, inm, this.noneIsChange);
          this.answer(res, requestId, view.managed, managedChanged, wait, { [SHADOW_LAYER_HEADER]: view.shadow });
        },
      },
      holdMs(wait),
    );
    res.on('close', cancel);
    return true;
  }
  // What a held one-poll request waits on: a view of both layers that reads "changed" (its ETag no longer PAIR_HELD)
  // once the managed bundle differs from `inm` or the shadow layer from `heldShadow`.
  private pairSelector(inm: string | undefined, heldShadow: string): BundleSelector {
    return {
      noneIsChange: false,
      select: (state, endpointId): PairView => {
        const managed = this.select(state, endpointId);
        const shadow = shadowTag(shadowBundleFor(state, endpointId));
        const same = unchanged(managed, inm, this.noneIsChange) && shadow === heldShadow;
        const base = managed ?? { releaseId: '', revision: 0, digest: '', etag: '', body: Buffer.alloc(0) };
        return { ...base, etag: same ? PAIR_HELD : '"changed"', managed, shadow };
      },
    };
  }
}

/** GET /v1/agent/bundle: the managed (enforced) layer's bundle, by the group's rollout. */
@Injectable()
export class BundleRoute extends LayerBundleRoute {
  readonly path = BUNDLE_PATH;
  readonly noneIsChange = false;
  protected override readonly announcesShadow = true;

  select(state: GroupBundleState, endpointId: string): ServedBundle | null {
    return bundleFor(state, endpointId);
  }
}

/**
 * GET /v1/agent/shadow-bundle: the shadow layer's bundle (the group's live shadow release, to the endpoints of its
 * reached rings). 204 means "no shadow layer": an agent naming one in If-None-Match is answered at once (and woken
 * when a shadow release is aborted or promoted), so it removes the layer.
 */
@Injectable()
export class ShadowBundleRoute extends LayerBundleRoute {
  readonly path = SHADOW_BUNDLE_PATH;
  readonly noneIsChange = true;

  select(state: GroupBundleState, endpointId: string): ServedBundle | null {
    return shadowBundleFor(state, endpointId);
  }
}
