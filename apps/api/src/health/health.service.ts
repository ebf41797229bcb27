// Checks that PostgreSQL and Redis answer, each within a short deadline.
import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.module';

export interface Readiness {
  status: 'ready';
  checks: Record<string, 'ok'>;
}

const CHECK_TIMEOUT_MS = 2000;

// Rejects when `work` does not settle within the deadline.
async function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

@Injectable()
export class HealthService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
    private readonly pools: PgPools,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Start-up work that must finish before the API is ready (e.g. creating the first admin token). */
  private readonly pending = new Set<string>();

  // Marks start-up work as begun: /readyz answers 503 naming it until `startupDone`.
  startupPending(what: string): void {
    this.pending.add(what);
  }

  // Marks start-up work as finished.
  startupDone(what: string): void {
    this.pending.delete(what);
  }

  // Throws a 503 naming every failing dependency and unfinished start-up work.
  async readiness(): Promise<Readiness> {
    const [pg, pgRead, redis] = await Promise.allSettled([
      // The write pool must reach a primary: a server in recovery (a replica, or a node demoted by a failover before
      // the load balancer moved) cannot take a write.
      withDeadline(this.prisma.$queryRaw<Array<{ r: boolean }>>`SELECT pg_is_in_recovery() AS r`, 'postgresql').then(
        (rows) => {
          if (rows[0]?.r !== false) throw new Error('connected to a read-only server (in recovery): no primary');
        },
      ),
      // The pool auditor reads and exports use (a replica when DATABASE_READ_URL is set).
      withDeadline(this.pools.read.query('SELECT 1'), 'postgresql (read pool)'),
      withDeadline(this.redis.client.ping(), 'redis'),
    ]);
    const failing: Record<string, string> = {};
    // A separate read database is its own dependency; otherwise both checks are "postgresql".
    const separate = !!this.config.DATABASE_READ_URL && this.config.DATABASE_READ_URL !== this.config.DATABASE_URL;
    const readName = separate ? 'postgresql_read' : 'postgresql';
    if (pg.status === 'rejected') failing.postgresql = errorText(pg.reason);
    if (pgRead.status === 'rejected') {
      failing[readName] = failing[readName]
        ? `${failing[readName]}; ${errorText(pgRead.reason)}`
        : errorText(pgRead.reason);
    }
    if (redis.status === 'rejected') failing.redis = errorText(redis.reason);
    if (this.pending.size > 0) failing.startup = `still ${[...this.pending].join(', ')}`;
    const names = Object.keys(failing);
    if (names.length > 0) {
      throw new ApiError(
        'unavailable',
        `Not ready: ${names.join(', ')} unavailable`,
        { failing },
        { 'retry-after': '5' },
      );
    }
    return { status: 'ready', checks: { postgresql: 'ok', [readName]: 'ok', redis: 'ok' } };
  }
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message.split('\n')[0]! : String(reason);
}
