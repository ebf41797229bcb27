// Creates the HTTP application (used by main.ts and by tests that need a real server).
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { BUNDLE_PATH, bundleOpenApiPath } from './agent/bundle.openapi';
import { BundleRoute } from './agent/bundle.route';
import { AppModule } from './app.module';
import type { AuthRule } from './auth/auth.decorators';
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

const registeredRoutes = new WeakMap<object, RegisteredRoute[]>();

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
    trustProxy: true,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req.headers),
    return503OnClosing: true,
    forceCloseConnections: true,
    serverFactory: raw.serverFactory(),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: options.bufferLogs ?? true,
    ...(options.bufferLogs === false ? { logger: ['error', 'warn'] as const } : {}),
  });
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  const registered: RegisteredRoute[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      registered.push({ method: String(method), url: route.url, config: route.config });
    }
  });
  registeredRoutes.set(app, registered);
  // The agents' bundle route is served in front of Fastify (see bundle.route.ts).
  const bundle = app.get(BundleRoute);
  raw.add(bundle);
  bundle.start();
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
      .addBearerAuth()
      .addCookieAuth(cookieNames(config.SESSION_COOKIE_SECURE).session, {
        type: 'apiKey',
        in: 'cookie',
        description: 'SSO session (GET /v1/auth/oidc/login); writes also need the x-csrf-token header from GET /v1/me',
      })
      .build(),
  );
  // Routes registered on Fastify directly (the agent bundle hot path) are described by hand.
  (document.paths as Record<string, unknown>)[BUNDLE_PATH] = bundleOpenApiPath;
  SwaggerModule.setup('docs', app, cleanupOpenApiDoc(document), { jsonDocumentUrl: 'docs/openapi.json' });
  // The web console (apps/console), served from memory under /console.
  registerConsole(fastify, config.CONSOLE_DIR ?? defaultConsoleDir());
  app.enableShutdownHooks();
  return app;
}

// On an empty database, creates the first admin token; returns the secret when it was generated here (print it once).
export async function bootstrapAdminToken(app: NestFastifyApplication, config: AppConfig): Promise<string | null> {
  const created = await app.get(TokensService).bootstrap(config.HOOKWARDEN_BOOTSTRAP_TOKEN);
  return created && !config.HOOKWARDEN_BOOTSTRAP_TOKEN ? created : null;
}
