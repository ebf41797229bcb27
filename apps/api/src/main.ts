// HTTP entry point: parse configuration, build the app, listen; SIGINT/SIGTERM close everything.
import 'reflect-metadata';
import { bootstrapAdminTokenOutcome, type BootstrapOutcome, createApp } from './bootstrap';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { type AppConfig, ConfigError, loadConfig } from './config/config.schema';
import { HealthService } from './health/health.service';

const TOKEN_STATE: Record<BootstrapOutcome, string> = {
  generated: 'first admin token created (printed above, shown only once)',
  'from-env': 'first admin token created from HOOKWARDEN_BOOTSTRAP_TOKEN',
  exists: 'no token created (the database already has tokens)',
};

const BOOTSTRAP_TASK = 'checking for the first admin token';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApp(config);
  // Not ready until the first admin token exists: a client that waits for /readyz can use the token at once.
  app.get(HealthService).startupPending(BOOTSTRAP_TASK);
  await app.listen({ port: config.PORT, host: config.HOST, backlog: config.LISTEN_BACKLOG });
  void bootstrapUntilDone(app, config);
}

// The base URL the server answers on (a wildcard host is shown as localhost).
function baseUrl(app: NestFastifyApplication, config: AppConfig): string {
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

// Creates the first admin token once PostgreSQL answers (the API serves /readyz meanwhile), then logs the one
// start-up line: where the API and its docs are and whether a token was created.
async function bootstrapUntilDone(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  for (;;) {
    try {
      const { outcome, secret } = await bootstrapAdminTokenOutcome(app, config);
      app.get(HealthService).startupDone(BOOTSTRAP_TASK);
      if (secret) {
        process.stdout.write(
          `\n  First start: created an admin API token (shown only this once):\n\n    ${secret}\n\n` +
            `  Use it as "Authorization: Bearer <token>". Create more with: npm run tokens -- create --name NAME --role admin\n\n`,
        );
      }
      const url = baseUrl(app, config);
      app
        .get(Logger)
        .log(
          `Hookwarden API listening on ${url} (docs ${url}/docs, console ${url}/console); ${TOKEN_STATE[outcome]}`,
          'Startup',
        );
      return;
    } catch (err) {
      app.get(Logger).warn({ err }, 'could not check for the first admin token yet; retrying in 5 s');
      await new Promise((r) => setTimeout(r, 5000).unref());
    }
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(
    `hookwarden-api failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
