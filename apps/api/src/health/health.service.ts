// Checks that PostgreSQL and Redis answer, each within a short deadline.
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
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
  ) {}

  // Throws a 503 naming every failing dependency.
  async readiness(): Promise<Readiness> {
    const [pg, redis] = await Promise.allSettled([
      withDeadline(this.prisma.$queryRaw`SELECT 1`, 'postgresql'),
      withDeadline(this.redis.client.ping(), 'redis'),
    ]);
    const failing: Record<string, string> = {};
    if (pg.status === 'rejected') failing.postgresql = errorText(pg.reason);
    if (redis.status === 'rejected') failing.redis = errorText(redis.reason);
    const names = Object.keys(failing);
    if (names.length > 0) {
      throw new ApiError(
        'unavailable',
        `Not ready: ${names.join(', ')} unavailable`,
        { failing },
        { 'retry-after': '5' },
      );
    }
    return { status: 'ready', checks: { postgresql: 'ok', redis: 'ok' } };
  }
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message.split('\n')[0]! : String(reason);
}
