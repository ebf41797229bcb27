// The API's one database access layer: a write pool and a read pool (pg-pools.ts), Prisma on each (prisma.service.ts).
// Every process opens at most DATABASE_POOL_MAX connections per pool role (write, read); raw pg access (COPY, hot
// lookups) goes through PgPools, everything else through Prisma on the same pools.
import { Global, Module } from '@nestjs/common';
import { PrismaService, ReadPrismaService } from '../prisma/prisma.service';
import { PgPools } from './pg-pools';

@Global()
@Module({
  providers: [PgPools, PrismaService, ReadPrismaService],
  exports: [PgPools, PrismaService, ReadPrismaService],
})
export class DatabaseModule {}
