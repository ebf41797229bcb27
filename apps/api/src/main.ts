// HTTP entry point: parse configuration, build the app, listen; SIGINT/SIGTERM close everything.
import 'reflect-metadata';
import { createApp } from './bootstrap';
import { ConfigError, loadConfig } from './config/config.schema';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApp(config);
  await app.listen({ port: config.PORT, host: config.HOST });
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
