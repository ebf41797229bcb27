// The one PrismaClient of the process, on the pg driver adapter (offline WebAssembly engine).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import pg from 'pg';
import { guardPool } from '../database/pg-pools';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  private readonly pool: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    // Our own pool, guarded: a client error during a database outage must not crash the process.
    const pool = guardPool(new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_MAX }));
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  // Closes the client and its pool on shutdown.
  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end().catch(() => undefined);
  }
}
