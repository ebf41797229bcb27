// Prometheus instruments of one API or worker process (prom-client) and the fleet-wide counters kept in Redis.
import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RedisService } from '../redis/redis.module';

/** Fleet-wide counters the worker increments in Redis (every worker adds to the same hash; the API exposes them). */
export const FLEET_COUNTERS = {
  hook_runs_ingested: 'Hook-run rows the workers stored (rate() gives rows ingested per second)',
  hook_run_batches_ingested: 'Uploaded hook-run batches the workers committed',
  hook_run_batches_failed: 'Ingest attempts that failed (each is retried with backoff)',
} as const satisfies Record<string, string>;

export type FleetCounter = keyof typeof FLEET_COUNTERS;

/** HTTP latency buckets (seconds): API calls in milliseconds up to long polls held for a minute. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

@Injectable()
export class MetricsService {
  private readonly logger = new Logger('Metrics');
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'hookwarden_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'hookwarden_http_request_duration_seconds',
    help: 'HTTP request latency (until the response finished), by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'hookwarden_auth_failures_total',
    help: 'Requests with missing, unknown, revoked or expired credentials',
    registers: [this.registry],
  });
  readonly limiterBlocks = new Counter({
    name: 'hookwarden_auth_limiter_blocks_total',
    help: 'Requests answered 429 because their client exceeded AUTH_FAILURE_LIMIT',
    registers: [this.registry],
  });
  readonly applyFailures = new Counter({
    name: 'hookwarden_apply_failures_reported_total',
    help: 'Agent status reports saying a policy revision failed to apply',
    registers: [this.registry],
  });

  constructor(private readonly redis: RedisService) {}

  // Records one finished HTTP request (route: the template, e.g. /v1/policies/:id; unmatched paths are `unmatched`).
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  // A gauge whose value is read when scraped (per process: e.g. the long polls this instance holds).
  gauge(name: string, help: string, read: () => number): void {
    if (this.registry.getSingleMetric(name)) return;
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  // Adds to a fleet-wide counter in Redis; a Redis failure loses the increment, never the caller's work.
  async addFleet(counter: FleetCounter, by = 1): Promise<void> {
    if (by <= 0) return;
    await this.redis.client.hincrby(this.redis.key('metrics'), counter, by).catch((err: unknown) => {
      this.logger.warn(`could not count ${counter}: ${(err as Error).message}`);
    });
  }

  // The fleet-wide counters (0 for those never incremented).
  async fleetCounters(): Promise<Record<FleetCounter, number>> {
    const raw = await this.redis.client.hgetall(this.redis.key('metrics'));
    const out = {} as Record<FleetCounter, number>;
    for (const name of Object.keys(FLEET_COUNTERS) as FleetCounter[]) out[name] = Number(raw[name] ?? 0) || 0;
    return out;
  }
}
