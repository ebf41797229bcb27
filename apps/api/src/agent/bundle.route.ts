// GET /v1/agent/bundle on the Fastify instance directly (the hot path: Nest's pipeline costs ~2× here).
// Same authentication (AuthService), same error shape, documented in OpenAPI by bundle.openapi.ts.
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRule } from '../auth/auth.decorators';
import { AuthService } from '../auth/auth.service';
import type { ErrorCode } from '../common/api-error';
import { bundleFor, type ServedBundle } from '../releases/rollout';
import { BUNDLE_PATH } from './bundle.openapi';
import { BundleCacheService, unchanged } from './bundle-cache.service';

/** Longest long poll a client may ask for. */
export const MAX_WAIT_SEC = 60;

// Parses `Prefer: wait=N` (RFC 7240) into seconds, capped at MAX_WAIT_SEC; 0 when absent or invalid.
export function preferWait(header: string | string[] | undefined): number {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return 0;
  const m = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(text);
  return m ? Math.min(Number(m[1]), MAX_WAIT_SEC) : 0;
}

@Injectable()
export class BundleRoute implements OnModuleInit {
  private readonly logger = new Logger('BundleRoute');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: AuthService,
    private readonly cache: BundleCacheService,
  ) {}

  // Registers the route when this process serves HTTP (the worker has no HTTP adapter).
  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.route({
      method: 'GET',
      url: BUNDLE_PATH,
      config: { authRule: { kind: 'agent' } satisfies AuthRule },
      handler: (req, reply) => this.handle(req, reply),
    });
    // Not awaited: the subscription completes when Redis answers (ioredis queues it meanwhile).
    this.cache.start().catch((err: unknown) => this.logger.warn({ err }, 'could not subscribe to bundle events yet'));
  }

  // Sends the one error shape.
  private fail(
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ): FastifyReply {
    return reply
      .code(status)
      .headers({ ...headers, 'content-type': 'application/json; charset=utf-8' })
      .send(JSON.stringify({ error: { code, message, requestId: String(req.id) } }));
  }

  // 401 with the challenge.
  private unauthorized(req: FastifyRequest, reply: FastifyReply): FastifyReply {
    return this.fail(req, reply, 401, 'unauthorized', 'Missing or invalid credentials', {
      'www-authenticate': 'Bearer',
    });
  }

  // Ends a held request whose endpoint's credential was rotated: 401 for the old credential, else unchanged (the
  // agent polls again at once).
  private async recheck(
    req: FastifyRequest,
    reply: FastifyReply,
    secret: string,
    endpointId: string,
    bundle: ServedBundle | null,
    waited: number,
  ): Promise<void> {
    let principal;
    try {
      principal = await this.auth.authenticate(secret);
    } catch (err) {
      this.logger.warn({ err }, 'credential lookup failed');
      if (!reply.sent) {
        void this.fail(req, reply, 503, 'unavailable', 'Credential check unavailable; retry later', {
          'retry-after': '5',
        });
      }
      return;
    }
    if (reply.sent || reply.raw.destroyed) return;
    if (principal?.kind === 'agent' && principal.endpointId === endpointId) {
      void this.answer(reply, bundle, false, waited);
    } else void this.unauthorized(req, reply);
  }

  // Sends a bundle (200), its ETag (304) or nothing (204).
  private answer(reply: FastifyReply, bundle: ServedBundle | null, changed: boolean, waited: number): FastifyReply {
    if (waited > 0) void reply.header('preference-applied', `wait=${waited}`);
    void reply.header('cache-control', 'no-cache');
    if (!bundle) return reply.code(204).send();
    void reply.header('etag', bundle.etag);
    if (!changed) return reply.code(304).send();
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(bundle.body);
  }

  // The handler: authenticate, resolve from the cache, answer or hold.
  private async handle(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const header = req.headers.authorization;
    const secret = header && header.length > 7 && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    let principal;
    try {
      principal = secret ? await this.auth.authenticate(secret) : null;
    } catch (err) {
      this.logger.warn({ err }, 'credential lookup failed');
      return this.fail(req, reply, 503, 'unavailable', 'Credential check unavailable; retry later', {
        'retry-after': '5',
      });
    }
    if (!principal) return this.unauthorized(req, reply);
    if (principal.kind !== 'agent')
      return this.fail(req, reply, 403, 'forbidden', 'This route is for endpoint agents only');
    const { groupId, endpointId } = principal;
    const inm = req.headers['if-none-match'];
    const wait = preferWait(req.headers.prefer);
    for (;;) {
      const gen = this.cache.gen(groupId);
      let state;
      try {
        state = await this.cache.state(groupId);
      } catch (err) {
        this.logger.warn({ err, groupId }, 'bundle state unavailable');
        return this.fail(req, reply, 503, 'unavailable', 'Bundle state unavailable; retry later', {
          'retry-after': '5',
        });
      }
      const bundle = bundleFor(state, endpointId);
      if (!unchanged(bundle, inm)) return this.answer(reply, bundle, true, 0);
      if (wait === 0) return this.answer(reply, bundle, false, 0);
      if (gen !== this.cache.gen(groupId)) continue; // changed while loading: evaluate again before holding
      if (this.cache.full) {
        const retry = String(5 + Math.floor(Math.random() * 10));
        return this.fail(req, reply, 503, 'unavailable', 'Too many held requests on this instance', {
          'retry-after': retry,
        });
      }
      const cancel = this.cache.hold(
        groupId,
        {
          endpointId,
          ifNoneMatch: inm,
          finish: (next) => {
            if (reply.sent || reply.raw.destroyed) return;
            if (next === undefined) return void this.answer(reply, bundle, false, wait);
            if (next === 'revoked') return void this.unauthorized(req, reply);
            if (next === 'recheck') return void this.recheck(req, reply, secret, endpointId, bundle, wait);
            void this.answer(reply, next, true, wait);
          },
        },
        wait * 1000,
      );
      reply.raw.on('close', cancel);
      return reply;
    }
  }
}
