// Boots a real API server (Fastify on an ephemeral port) against a per-file database and Redis prefix.
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { bootstrapAdminToken, createApp } from '../../apps/api/src/bootstrap';
import { type AppConfig, loadConfig } from '../../apps/api/src/config/config.schema';
import { createTestDatabase, type TestDatabase } from './db';
import { TEST_REDIS_URL, testRedisPrefix } from './run';

export interface TestApi {
  app: NestFastifyApplication;
  baseUrl: string;
  /** The bootstrap admin token of this API's database. */
  adminToken: string;
  config: AppConfig;
  db: TestDatabase;
  close(): Promise<void>;
}

// Starts the API on 127.0.0.1 with its own database; `env` overrides configuration variables. `sameAs` starts
// another instance of an existing test API (its database, Redis prefix and admin token; the first one drops them).
// `db` runs it on a database the caller owns (e.g. the HA cluster's, test/support/ha/postgres.ts): never dropped here.
export async function startTestApi(
  env: Record<string, string> = {},
  options: { bootstrap?: boolean; sameAs?: TestApi; db?: TestDatabase } = {},
): Promise<TestApi> {
  const peer = options.sameAs;
  const db = peer ? peer.db : (options.db ?? (await createTestDatabase()));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: testRedisPrefix(),
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    HOOKWARDEN_BOOTSTRAP_TOKEN: `hwt_test_${randomBytes(24).toString('base64url')}`,
    ...(peer ? { REDIS_PREFIX: peer.config.REDIS_PREFIX, HOOKWARDEN_BOOTSTRAP_TOKEN: peer.adminToken } : {}),
    ...env,
  });
  const app = await createApp(config, { bufferLogs: false });
  if (options.bootstrap !== false) await bootstrapAdminToken(app, config);
  await app.listen({ port: config.PORT, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    adminToken: config.HOOKWARDEN_BOOTSTRAP_TOKEN!,
    config,
    db,
    close: async () => {
      await app.close();
      if (!peer && !options.db) await db.drop();
    },
  };
}
