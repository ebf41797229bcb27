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

// Makes a pool survive a database outage: errors of idle clients (pool 'error') and of checked-out clients (client
// 'error', which would otherwise crash the process) are reported to `onError`; the query in flight still rejects,
// the broken client is dropped on release and the next query reconnects.
export function guardPool(pool: pg.Pool, onError: (err: Error) => void = () => undefined): pg.Pool {
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

@Injectable()
export class PgPools implements OnModuleDestroy {
  /** Primary: every change (Prisma, ingest, maintenance). */
  readonly write: pg.Pool;
  /** Auditor queries and exports (DATABASE_READ_URL, a replica when configured). */
  readonly read: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.write = new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_MAX, types });
    this.read = new pg.Pool({
      connectionString: config.DATABASE_READ_URL ?? config.DATABASE_URL,
      max: config.DATABASE_POOL_MAX,
      types,
    });
    // Client errors (server restart, refused connections) must not crash the process; the next query reconnects.
    guardPool(this.write);
    guardPool(this.read);
  }

  // Closes both pools on shutdown.
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.write.end(), this.read.end()]);
  }
}
