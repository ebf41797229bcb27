// Agent check-ins: record the status and feed the rollout gate.
import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { ReleasesService } from '../releases/releases.service';
import type { StatusInput } from './agent.dto';
import { AgentRepository } from './agent.repository';

@Injectable()
export class AgentService {
  constructor(
    private readonly repo: AgentRepository,
    private readonly releases: ReleasesService,
    private readonly metrics: MetricsService,
  ) {}

  // Stores the report, records the revisions it shows served and applied, then runs the gate of the group's rolling
  // release if the report concerns it.
  async status(endpointId: string, groupId: string, s: StatusInput): Promise<{ accepted: true; serverTime: string }> {
    const now = new Date();
    await this.repo.recordStatus(endpointId, groupId, s, now);
    if (s.state === 'failed') this.metrics.applyFailures.inc();
    await this.releases.afterReport(endpointId, groupId, s);
    return { accepted: true, serverTime: now.toISOString() };
  }
}
