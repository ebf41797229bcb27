// What a failover looks like from the API's database layer, on the real server: a write reaching a read-only server
// (a primary demoted before the load balancer moved) and Prisma's driver-adapter errors map to 503 with Retry-After
// (never an unmapped 500), and a connection cut in the middle of a Prisma interactive transaction does not cost the
// pool that connection for good (guardPool reclaims it).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapDatabaseError } from '../../apps/api/src/common/db-errors';
import { guardPool } from '../../apps/api/src/database/pg-pools';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

// The error `work` fails with.
async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('database errors of a failover', () => {
  it('a write on a read-only server (SQLSTATE 25006) is a 503 with Retry-After: Prisma model, raw and transaction', async () => {
    const pool = guardPool(new pg.Pool({ connectionString: db.url, options: '-c default_transaction_read_only=on' }));
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      const errors = [
        await failure(() => prisma.group.create({ data: { name: 'ro-model' } })),
        await failure(
          () =>
            prisma.$executeRaw`INSERT INTO groups (id, name, updated_at) VALUES (gen_random_uuid(), 'ro-raw', now())`,
        ),
        await failure(() => prisma.$transaction((tx) => tx.group.create({ data: { name: 'ro-tx' } }))),
        await failure(() =>
          pool.query(`INSERT INTO groups (id, name, updated_at) VALUES (gen_random_uuid(), 'x', now())`),
        ),
      ];
      for (const err of errors) {
        expect(mapDatabaseError(err), String(err)).toMatchObject({
          status: 503,
          code: 'unavailable',
          headers: { 'retry-after': '5' },
        });
      }
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
  });

  it("the driver adapter's errors map by kind and SQLSTATE (unmapped ones stay null)", () => {
    const adapter = (cause: Record<string, unknown>) =>
      Object.assign(new Error('x'), { name: 'DriverAdapterError', cause });
    expect(mapDatabaseError(adapter({ kind: 'DatabaseNotReachable' }))?.status).toBe(503);
    expect(mapDatabaseError(adapter({ kind: 'ConnectionClosed' }))?.status).toBe(503);
    expect(mapDatabaseError(adapter({ kind: 'postgres', code: '57P01' }))?.status).toBe(503);
    expect(mapDatabaseError(adapter({ kind: 'postgres', code: '25006' }))?.status).toBe(503);
    expect(mapDatabaseError(adapter({ kind: 'UniqueConstraintViolation', originalCode: '23505' }))?.status).toBe(409);
    expect(mapDatabaseError(adapter({ kind: 'postgres', code: '42601' }))).toBeNull();
  });

  it('a connection cut inside a Prisma interactive transaction is reclaimed: a one-connection pool serves again', async () => {
    const proxy: TcpProxy = await tcpProxy(Number(new URL(db.url).port || 5432));
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const pool = guardPool(new pg.Pool({ connectionString: url.toString(), max: 1 }));
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      const cut = prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await proxy.refuse(); // the server is gone mid-transaction (as when the primary dies)
        await tx.$queryRaw`SELECT 2`;
      });
      expect(mapDatabaseError(await failure(() => cut))?.status).toBe(503);
      await proxy.restore();
      // With the connection leaked the next query would wait for ever on the pool's only slot.
      const rows = await Promise.race([
        prisma.$queryRaw<Array<{ ok: number }>>`SELECT 1 AS ok`,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('the pool never got its connection back')), 15_000),
        ),
      ]);
      expect(rows).toEqual([{ ok: 1 }]);
      expect(pool.totalCount).toBe(1);
    } finally {
      await prisma.$disconnect();
      await pool.end();
      await proxy.close();
    }
  });
});
