// Signed assignment statements: which group an endpoint belongs to (and since which epoch), signed with the bundle key.
// The agent applies only bundles of the group its newest statement names; enrollment and GET /v1/agent/assignment
// deliver one, and a move between groups raises the epoch so an old statement cannot be replayed.
import { Injectable } from '@nestjs/common';
import { ASSIGNMENT_KIND, type AssignmentStatement, assignmentText, type SignedStatement } from '@hookwarden/hook-core';
import { ApiError } from '../common/api-error';
import { ReleasesService } from '../releases/releases.service';
import { bundleFor } from '../releases/rollout';
import { SigningService } from '../signing/signing.service';
import { EndpointsRepository } from './endpoints.repository';

// The statement for an endpoint's assignment (pure).
export function assignmentStatement(input: {
  endpointId: string;
  groupId: string;
  epoch: number;
  minRevision: number | null;
  issuedAt: Date;
}): AssignmentStatement {
  return {
    kind: ASSIGNMENT_KIND,
    format: 1,
    endpointId: input.endpointId,
    groupId: input.groupId,
    epoch: input.epoch,
    minRevision: input.minRevision,
    issuedAt: input.issuedAt.toISOString(),
  };
}

@Injectable()
export class AssignmentService {
  constructor(
    private readonly repo: EndpointsRepository,
    private readonly releases: ReleasesService,
    private readonly signing: SigningService,
  ) {}

  // The endpoint's current assignment, signed; the floor is the revision of the bundle it is served right now.
  async signedFor(endpointId: string): Promise<SignedStatement> {
    const row = await this.repo.assignmentOf(endpointId);
    if (!row || row.revokedAt) throw new ApiError('not_found', `Endpoint ${endpointId} not found`);
    const served = bundleFor(await this.releases.bundleState(row.groupId), endpointId);
    const text = assignmentText(
      assignmentStatement({
        endpointId,
        groupId: row.groupId,
        epoch: row.assignmentEpoch,
        minRevision: served?.revision ?? null,
        issuedAt: new Date(),
      }),
    );
    await this.signing.refreshSigner();
    const { keyId, signature } = this.signing.sign(Buffer.from(text, 'utf8'));
    return { statement: text, signature, keyId };
  }
}
