// The process's two PostgreSQL pools: `write` (the primary: every change, Prisma's PrismaService, ingest COPY) and
// `read` (auditor queries and exports: DATABASE_READ_URL, a replica when configured; ReadPrismaService). Each holds
// at most DATABASE_POOL_MAX connections. Injected as PgPools wherever raw pg access is needed.
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
    // Idle-client errors (server restart) must not crash the process; the next query reconnects.
    this.write.on('error', () => undefined);
    this.read.on('error', () => undefined);
  }

  // Closes both pools on shutdown.
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.write.end(), this.read.end()]);
  }
}
