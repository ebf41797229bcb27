// The process's two PostgreSQL pools: `write` (the primary: every change, PrismaService, ingest COPY) and `read`
// (auditor queries and exports: DATABASE_READ_URL, a replica when configured; ReadPrismaService). Each holds at most
// DATABASE_POOL_MAX connections. Provided by the DatabaseModule (database.module.ts).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

// int8 (counts, seq) as JS numbers on these pools only: sequence numbers and counts stay far below 2^53.
const defaultParser = pg.types.getTypeParser.bind(pg.types) as (oid: number, format?: string) => unknown;
const types = {
  getTypeParser: ((oid: number, format?: string): unknown =>
    oid === 20 ? (v: string) => Number(v) : defaultParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** How long a checked-out client whose connection died may stay out before the pool takes it back itself. */
export const DEAD_CLIENT_RECLAIM_MS = 1000;

// Makes a pool survive a database outage: errors of idle clients (pool 'error') and of checked-out clients (client
// 'error', which would otherwise crash the process) are reported to `onError`; the query in flight still rejects,
// the broken client is dropped on release and the next query reconnects. A checked-out client whose connection died
// and that its holder never releases is reclaimed after DEAD_CLIENT_RECLAIM_MS (Prisma's driver adapter leaks the
// connection of an interactive transaction whose ROLLBACK fails on a dead connection: without this, every failover
// that cuts such a transaction would cost the pool a connection for good); the holder's own late release is a no-op.
export function guardPool(pool: pg.Pool, onError: (err: Error) => void = () => undefined): pg.Pool {
  const out = new Set<pg.PoolClient>();
  pool.on('error', onError);
  pool.on('acquire', (client) => out.add(client));
  pool.on('release', (_err, client) => out.delete(client));
  pool.on('connect', (client) =>
    client.on('error', (err) => {
      onError(err);
      setTimeout(() => {
        if (!out.has(client)) return;
        const release = client.release.bind(client);
        client.release = () => undefined;
        release(err);
      }, DEAD_CLIENT_RECLAIM_MS).unref();
    }),
  );
  return pool;
}

/** Deadline of getting a connection (opening one, or waiting for a busy pool): a primary that vanished without
 *  closing its sockets (a machine gone, a partition) fails the request with a 503 instead of holding it forever;
 *  TCP keepalive finds such dead connections. */
export const CONNECT_TIMEOUT_MS = 10_000;

@Injectable()
export class PgPools implements OnModuleDestroy {
  /** Primary: every change (Prisma, ingest, maintenance). */
  readonly write: pg.Pool;
  /** Auditor queries and exports (DATABASE_READ_URL, a replica when configured). */
  readonly read: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const common = {
      max: config.DATABASE_POOL_MAX,
      types,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    };
    this.write = new pg.Pool({ connectionString: config.DATABASE_URL, ...common });
    this.read = new pg.Pool({ connectionString: config.DATABASE_READ_URL ?? config.DATABASE_URL, ...common });
    // Client errors (server restart, refused connections) must not crash the process; the next query reconnects.
    guardPool(this.write);
    guardPool(this.read);
  }

  // Closes both pools on shutdown.
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.write.end(), this.read.end()]);
  }
}
