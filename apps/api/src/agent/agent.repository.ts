// Persistence of agent check-ins (status reports).
import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';
import type { StatusInput } from './agent.dto';

@Injectable()
export class AgentRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Records a status report on the endpoint row (last check-in, state, applied bundle, counters, agent and contract,
  // the shadow layer).
  async recordStatus(endpointId: string, groupId: string, s: StatusInput, now: Date): Promise<void> {
    const applied =
      s.appliedRevision !== null
        ? await this.prisma.release.findFirst({
            where: { groupId, revision: s.appliedRevision, strategy: { not: 'shadow' } },
            select: { id: true },
          })
        : null;
    // The shadow layer counts as applied only with the digest of a shadow release of this group (as for the managed one).
    const shadow = s.shadow;
    const shadowRelease =
      shadow?.releaseId && shadow.digest
        ? await this.prisma.release.findFirst({
            where: { id: shadow.releaseId, groupId, strategy: 'shadow', digest: shadow.digest },
            select: { id: true, revision: true },
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
        ...(shadow
          ? {
              shadowReleaseId: shadowRelease?.id ?? null,
              shadowRevision: shadowRelease?.revision ?? null,
              shadowError: shadow.error,
            }
          : {}),
      },
    });
  }
}
