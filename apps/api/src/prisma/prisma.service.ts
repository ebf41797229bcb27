// The process's Prisma clients, on the pg driver adapter (offline WebAssembly engine) over the pools of the database
// module: PrismaService on the write pool (every change and the reads that must see them), ReadPrismaService on the
// read pool (auditor queries and exports; DATABASE_READ_URL, a replica when configured). The pools are guarded
// (pg-pools.ts) and closed by PgPools; the adapter does not end a pool it was given.
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import { PgPools } from '../database/pg-pools';

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(pools: PgPools) {
    super({ adapter: new PrismaPg(pools.write) });
  }

  // Detaches from the pool on shutdown (PgPools closes the pool itself).
  async onModuleDestroy(): Promise<void> {
    await this.$disconnect().catch(() => undefined);
  }
}

@Injectable()
export class ReadPrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(pools: PgPools) {
    super({ adapter: new PrismaPg(pools.read) });
  }

  // Detaches from the pool on shutdown.
  async onModuleDestroy(): Promise<void> {
    await this.$disconnect().catch(() => undefined);
  }
}
