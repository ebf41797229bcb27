// Builds the /metrics exposition: this process's instruments plus fleet state read at scrape time.
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ADMISSIONS } from '../endpoints/admission';
import { QUEUES } from '../queues/queue-names';
import { FLEET_COUNTERS, type FleetCounter, MetricsService } from './metrics.service';
import { MetricsRepository } from './metrics.repository';
import { StreamingService } from '../streaming/streaming.service';

/** Ingest job states exposed as queue depth. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** One sample: labels and value. */
type Sample = { labels: Record<string, string>; value: number };

/** Prometheus text for one metric family. */
function family(name: string, help: string, type: 'gauge' | 'counter', samples: Sample[]): string {
  const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const s of samples) {
    const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${esc(v)}"`);
    lines.push(`${name}${labels.length ? `{${labels.join(',')}}` : ''} ${s.value}`);
  }
  return lines.join('\n') + '\n';
}

@Injectable()
export class MetricsCollector {
  constructor(
    private readonly metrics: MetricsService,
    private readonly repo: MetricsRepository,
    @InjectQueue(QUEUES.ingest) private readonly ingest: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly streaming: StreamingService,
  ) {}

  /** The content type of the exposition. */
  get contentType(): string {
    return Registry.PROMETHEUS_CONTENT_TYPE;
  }

  // The whole exposition text (process metrics first, then fleet state).
  async render(): Promise<string> {
    const [own, endpoints, revisions, releases, findings, queue, fleet, admissions, streams] = await Promise.all([
      this.metrics.registry.metrics(),
      this.repo.endpointStates(this.config.METRICS_ENDPOINT_STALE_SEC),
      this.repo.appliedRevisions(),
      this.repo.releaseStatuses(),
      this.repo.openFindings(),
      this.ingest.getJobCounts(...QUEUE_STATES),
      this.metrics.fleetCounters(),
      this.repo.admissions(),
      this.streaming.metricsText(),
    ]);
    const parts = [own];
    parts.push(
      family(
        'hookwarden_endpoints',
        'Admitted endpoints by state (pending, applied, failed, drifted; revoked ones as revoked)',
        'gauge',
        endpoints.states.map((s) => ({ labels: { state: s.state }, value: s.count })),
      ),
      family(
        'hookwarden_endpoints_admission',
        'Endpoints by enrollment decision (active, pending = duplicate machine id awaiting an admin, rejected, retired)',
        'gauge',
        ADMISSIONS.map((a) => ({
          labels: { admission: a },
          value: admissions.find((x) => x.admission === a)?.count ?? 0,
        })),
      ),
      family(
        'hookwarden_endpoints_stale',
        `Active endpoints not seen for METRICS_ENDPOINT_STALE_SEC (${this.config.METRICS_ENDPOINT_STALE_SEC} s)`,
        'gauge',
        [{ labels: {}, value: endpoints.stale }],
      ),
      family(
        'hookwarden_endpoints_applied_revision',
        'Active endpoints by group and applied policy revision (none before the first apply)',
        'gauge',
        revisions.map((r) => ({ labels: { group_id: r.groupId, revision: r.revision }, value: r.count })),
      ),
      family(
        'hookwarden_releases',
        'Releases by status (rolling, paused, completed, aborted, superseded, …); gate_paused="true" for paused by the failure gate',
        'gauge',
        releases.map((r) => ({ labels: { status: r.status, gate_paused: String(r.gatePaused) }, value: r.count })),
      ),
      family(
        'hookwarden_findings_open',
        'Unresolved findings by kind (missing_range, broken_link, dropped, quarantined, unserved_revision, duplicate_machine_id)',
        'gauge',
        findings.map((f) => ({ labels: { kind: f.kind }, value: f.count })),
      ),
      family(
        'hookwarden_ingest_queue_jobs',
        'Hook-run ingest jobs by state (waiting is the backlog)',
        'gauge',
        QUEUE_STATES.map((state) => ({ labels: { state }, value: queue[state] ?? 0 })),
      ),
    );
    for (const name of Object.keys(FLEET_COUNTERS) as FleetCounter[])
      parts.push(
        family(`hookwarden_${name}_total`, FLEET_COUNTERS[name], 'counter', [{ labels: {}, value: fleet[name] }]),
      );
    parts.push(streams);
    return parts.join('');
  }
}
