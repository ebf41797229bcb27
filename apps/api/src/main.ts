// HTTP entry point: parse configuration, build the app, listen; SIGINT/SIGTERM close everything.
import 'reflect-metadata';
import { bootstrapAdminToken, createApp } from './bootstrap';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { type AppConfig, ConfigError, loadConfig } from './config/config.schema';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApp(config);
  await app.listen({ port: config.PORT, host: config.HOST });
  void bootstrapUntilDone(app, config);
}

// Creates the first admin token once PostgreSQL answers (the API serves /readyz meanwhile).
async function bootstrapUntilDone(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  for (;;) {
    try {
      const firstToken = await bootstrapAdminToken(app, config);
      if (firstToken) {
        process.stdout.write(
          `\n  First start: created an admin API token (shown only this once):\n\n    ${firstToken}\n\n` +
            `  Use it as "Authorization: Bearer <token>". Create more with: npm run tokens -- create --name NAME --role admin\n\n`,
        );
      }
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
