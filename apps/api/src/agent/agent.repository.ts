// Persistence of agent check-ins (status reports).
import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';
import type { StatusInput } from './agent.dto';

@Injectable()
export class AgentRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Records a status report on the endpoint row (last check-in, state, applied bundle, counters, agent and contract).
  async recordStatus(endpointId: string, groupId: string, s: StatusInput, now: Date): Promise<void> {
    const applied =
      s.appliedRevision !== null
        ? await this.prisma.release.findUnique({
            where: { groupId_revision: { groupId, revision: s.appliedRevision } },
            select: { id: true },
          })
        : null;
    await this.prisma.endpoint.update({
      where: { id: endpointId },
      data: {
        lastSeenAt: now,
        state: s.state,
        appliedRevision: s.appliedRevision,
        appliedDigest: s.appliedDigest,
        appliedReleaseId: applied?.id ?? null,
        targetRevision: s.targetRevision,
        uploadsPending: s.counters.uploadsPending,
        recordsDropped: s.counters.recordsDropped,
        ...(s.agentVersion ? { agentVersion: s.agentVersion } : {}),
        ...(s.contractVersion !== undefined ? { contractVersion: s.contractVersion } : {}),
        lastStatus: { at: now.toISOString(), errors: s.errors, files: s.files },
      },
    });
  }
}
