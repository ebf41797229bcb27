// Creates the HTTP application (used by main.ts and by tests that need a real server).
import { NestFactory } from '@nestjs/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { BUNDLE_PATH, bundleOpenApiPath, SHADOW_BUNDLE_PATH, shadowBundleOpenApiPath } from './agent/bundle.openapi';
import { BundleRoute, ShadowBundleRoute } from './agent/bundle.route';
import { AppModule } from './app.module';
import type { AuthRule } from './auth/auth.decorators';
import { QuietStartupLogger } from './common/app-logger';
import { finishOpenApiDocument } from './common/openapi';
import { trustFunction } from './common/client-address';
import { setCursorSecret } from './common/cursor';
import { registerBoundedJsonParser } from './common/json-depth';
import { RawRouter, requestIdOf } from './common/raw-router';
import { defaultConsoleDir } from './console/console-assets';
import { registerConsole } from './console/console.routes';
import type { AppConfig } from './config/config.schema';
import { cookieNames } from './sso/session-auth.service';
import { MetricsService } from './metrics/metrics.service';
import { TokensService } from './tokens/tokens.service';

/** A route as the app registered it; raw (non-controller) routes declare their auth rule in `config.authRule`. */
export interface RegisteredRoute {
  method: string;
  url: string;
  config?: { authRule?: AuthRule };
  /** Served by the raw router in front of Fastify (not a Fastify route). */
  raw?: boolean;
}

/** What each OpenAPI tag groups. */
const TAGS: Record<string, string> = {
  health: 'Liveness and readiness probes (no credentials).',
  tokens: "People's API tokens (admin).",
  groups: 'Endpoint groups.',
  policies: 'Policies and their immutable versions (requirements.toml plus managed files).',
  'policy versions': 'Immutable policy versions: author, validate, read, canonical requirements.toml, diffs.',
  'audit-log': 'The admin audit log: hash-chained, exportable, verifiable with signed checkpoints.',
  signing: 'Trusted public keys as agents get them.',
  'signing-keys': 'Bundle-signing keys (admin): add, activate, retire.',
  enrollment: "Enrollment secrets for a group's machines.",
  endpoints: 'Enrolled endpoints (machines): list, move between groups, revoke.',
  releases: 'Releases of a policy version to a group: immediate or staged rings with a failure gate.',
  agent: 'Routes the endpoint agents call with their credential.',
  'hook-runs': 'Hook-run audit: queries, exports, aggregates and chain findings.',
  'audit-settings': "A group's hook-run capture policy.",
  inventory: 'Fleet hook inventory, deny list, findings and release impact preview.',
  auth: 'SSO sign-in (OpenID Connect), the signed-in person, personal tokens and sessions.',
  metrics: 'Prometheus metrics (metrics role).',
};

const registeredRoutes = new WeakMap<object, RegisteredRoute[]>();
const openApiDocuments = new WeakMap<object, OpenAPIObject>();

// The OpenAPI document the app serves at /docs/openapi.json (built without touching the database).
export function openApiDocumentOf(app: NestFastifyApplication): OpenAPIObject {
  const doc = openApiDocuments.get(app);
  if (!doc) throw new Error('this app was not built by createApp');
  return doc;
}

// Every HTTP route the app serves (controller routes, raw routes in front of Fastify, docs), for route audits.
export function listRegisteredRoutes(app: NestFastifyApplication): RegisteredRoute[] {
  return registeredRoutes.get(app) ?? [];
}

export interface CreateAppOptions {
  /** Buffer logs until the pino logger is attached (default true). */
  bufferLogs?: boolean;
}

// Builds the Nest application on Fastify with docs, error shape and shutdown hooks; does not listen.
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const raw = new RawRouter();
  const adapter = new FastifyAdapter({
    bodyLimit: 32 * 1024 * 1024,
    // X-Forwarded-For counts only when a configured proxy (TRUST_PROXY) sent the request.
    trustProxy: trustFunction(config.TRUST_PROXY),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req.headers),
    return503OnClosing: true,
    forceCloseConnections: true,
    serverFactory: raw.serverFactory(),
    // Requests the router refuses (bad percent-encoding, an over-long path parameter) get the one error shape too.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const status = tooLong ? 414 : (error.statusCode ?? 400);
      const message = tooLong
        ? 'A path parameter is too long'
        : 'The request URL is malformed (bad percent-encoding or characters)';
      void reply
        .status(status)
        .header('content-type', 'application/json; charset=utf-8')
        .send(
          JSON.stringify({
            error: {
              code: 'bad_request',
              message,
              details: [{ path: '$', in: 'path', message, code: error.code }],
              requestId: String(request.id),
            },
          }),
        );
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: options.bufferLogs ?? true,
    // Fastify's own parsers stay; application/json is replaced by the bounded-depth one (registerBoundedJsonParser).
    bodyParser: false,
    ...(options.bufferLogs === false ? { logger: ['error', 'warn'] as const } : {}),
  });
  app.useLogger(new QuietStartupLogger(app.get(Logger)));
  setCursorSecret(config.HOOKWARDEN_CURSOR_SECRET);
  const fastify = app.getHttpAdapter().getInstance();
  registerBoundedJsonParser(fastify);
  const registered: RegisteredRoute[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      registered.push({ method: String(method), url: route.url, config: route.config });
    }
  });
  registeredRoutes.set(app, registered);
  // The agents' bundle routes (managed and shadow layer) are served in front of Fastify (see bundle.route.ts).
  for (const route of [app.get(BundleRoute), app.get(ShadowBundleRoute)]) {
    raw.add(route);
    route.start();
  }
  for (const r of raw.list()) {
    for (const method of r.methods)
      registered.push({ method, url: r.path, config: { authRule: r.authRule }, raw: true });
  }
  fastify.addHook('preClose', (done) => {
    raw.closing = true;
    done();
  });
  // Request count and latency by route template and status (raw routes report through the raw router).
  const metrics = app.get(MetricsService);
  raw.onFinished = (method, path, status, seconds) => metrics.observeHttp(method, path, status, seconds);
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  // Synchronous hook (no promise per request): every response names its request id.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Hookwarden API')
      .setDescription('Central governance of ZeroCode hooks: policy authoring, endpoint sync and hook-run audit.')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer' }, 'bearer')
      .addApiKey(
        {
          type: 'apiKey',
          in: 'header',
          name: 'Signature',
          description:
            'Agent requests: RFC 9421 message signature (Signature-Input, Signature, Content-Digest) with a session ' +
            'of the endpoint key (POST /v1/agent/session, itself signed with the endpoint key). See docs/agent.md.',
        },
        'agentSignature',
      )
      .addCookieAuth(cookieNames(config.SESSION_COOKIE_SECURE).session, {
        type: 'apiKey',
        in: 'cookie',
        description: 'SSO session (GET /v1/auth/oidc/login); writes also need the x-csrf-token header from GET /v1/me',
      })
      .build(),
  );
  // Routes registered on Fastify directly (the agent bundle hot path) are described by hand.
  (document.paths as Record<string, unknown>)[BUNDLE_PATH] = bundleOpenApiPath;
  (document.paths as Record<string, unknown>)[SHADOW_BUNDLE_PATH] = shadowBundleOpenApiPath;
  const served = finishOpenApiDocument(cleanupOpenApiDoc(document), TAGS);
  openApiDocuments.set(app, served);
  SwaggerModule.setup('docs', app, served, { jsonDocumentUrl: 'docs/openapi.json' });
  // The web console (apps/console), served from memory under /console.
  registerConsole(fastify, config.CONSOLE_DIR ?? defaultConsoleDir());
  app.enableShutdownHooks();
  return app;
}

/** What start-up did about the first admin token. */
export type BootstrapOutcome = 'generated' | 'from-env' | 'exists';

// On an empty database, creates the first admin token; returns the secret when it was generated here (print it once).
export async function bootstrapAdminToken(app: NestFastifyApplication, config: AppConfig): Promise<string | null> {
  const outcome = await bootstrapAdminTokenOutcome(app, config);
  return outcome.secret;
}

// Like bootstrapAdminToken, also saying whether a token was created (and how).
export async function bootstrapAdminTokenOutcome(
  app: NestFastifyApplication,
  config: AppConfig,
): Promise<{ outcome: BootstrapOutcome; secret: string | null }> {
  const created = await app.get(TokensService).bootstrap(config.HOOKWARDEN_BOOTSTRAP_TOKEN);
  if (!created) return { outcome: 'exists', secret: null };
  return config.HOOKWARDEN_BOOTSTRAP_TOKEN
    ? { outcome: 'from-env', secret: null }
    : { outcome: 'generated', secret: created };
}
