// Enrollment secrets (admin) and agent enrollment (secret → endpoint + credential + signing keys).
import { Injectable } from '@nestjs/common';
import type { EnrollmentSecret } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthRateLimitService } from '../auth/auth-rate-limit.service';
import { AuthService } from '../auth/auth.service';
import { AGENT_TOKEN_PREFIX, ENROLL_SECRET_PREFIX, hashSecret, newSecret, secretPrefix } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { AssignmentService } from '../endpoints/assignment.service';
import { BundleEventsService } from '../releases/bundle-events.service';
import { SigningService } from '../signing/signing.service';
import { EnrollmentRepository } from './enrollment.repository';
import type { EnrollmentSecretView } from './enrollment.dto';

// Public view of a stored secret (never the hash).
function toView(s: EnrollmentSecret): EnrollmentSecretView {
  return {
    id: s.id,
    groupId: s.groupId,
    name: s.name,
    prefix: s.prefix,
    maxUses: s.maxUses,
    uses: s.uses,
    expiresAt: s.expiresAt?.toISOString() ?? null,
    revokedAt: s.revokedAt?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    createdBy: s.createdBy,
  };
}

@Injectable()
export class EnrollmentService {
  constructor(
    private readonly repo: EnrollmentRepository,
    private readonly signing: SigningService,
    private readonly auth: AuthService,
    private readonly rateLimit: AuthRateLimitService,
    private readonly events: BundleEventsService,
    private readonly assignment: AssignmentService,
  ) {}

  // Creates a secret for a group; the secret is returned once.
  async create(
    groupId: string,
    input: { name: string; expiresAt?: string; maxUses?: number },
    ctx: AuditContext,
  ): Promise<EnrollmentSecretView & { secret: string }> {
    if (!(await this.repo.groupExists(groupId))) throw new ApiError('not_found', `Group ${groupId} not found`);
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new ApiError('validation_failed', 'expiresAt must be in the future', [
        { path: '$.expiresAt', message: 'must be in the future' },
      ]);
    }
    const secret = newSecret(ENROLL_SECRET_PREFIX);
    const row = await this.repo.create(
      {
        groupId,
        name: input.name,
        secretHash: hashSecret(secret),
        prefix: secretPrefix(secret),
        maxUses: input.maxUses ?? null,
        expiresAt,
        createdBy: ctx.actorName,
      },
      ctx,
    );
    return { ...toView(row), secret };
  }

  // Lists a group's secrets.
  async list(groupId: string): Promise<{ items: EnrollmentSecretView[] }> {
    if (!(await this.repo.groupExists(groupId))) throw new ApiError('not_found', `Group ${groupId} not found`);
    return { items: (await this.repo.list(groupId)).map(toView) };
  }

  // Revokes a secret.
  async revoke(id: string, ctx: AuditContext): Promise<EnrollmentSecretView> {
    const row = await this.repo.revoke(id, ctx);
    if (!row) throw new ApiError('not_found', `Enrollment secret ${id} not found`);
    return toView(row);
  }

  // Enrolls (or re-enrolls) a machine with a secret; a re-enrolled machine's old credential stops working at once on
  // every API instance (announced like a revocation, on the bundle-events channel).
  async enroll(
    secret: string | undefined,
    input: { hostname: string; platform: string; machineId: string; agentVersion: string },
    clientIp: string,
  ) {
    // A failed attempt counts against the client's address (429 once over AUTH_FAILURE_LIMIT, like bad credentials).
    if (!secret || !secret.startsWith(ENROLL_SECRET_PREFIX)) {
      throw await this.rateLimit.refuse(
        clientIp,
        new ApiError(
          'unauthorized',
          'An enrollment secret (hws_…) is required in the body or as the bearer',
          undefined,
          {
            'www-authenticate': 'Bearer',
          },
        ),
      );
    }
    const credential = newSecret(AGENT_TOKEN_PREFIX);
    const result = await this.repo.enroll({
      ...input,
      secretHash: hashSecret(secret),
      credentialHash: hashSecret(credential),
    });
    if (!result.ok) {
      throw await this.rateLimit.refuse(
        clientIp,
        new ApiError('unauthorized', 'The enrollment secret is unknown, revoked, expired or used up', undefined, {
          'www-authenticate': 'Bearer',
        }),
      );
    }
    if (result.reenrolled) {
      this.auth.invalidateEndpoint(result.endpointId);
      await this.events.publishCredentialRotated(result.endpointId);
    }
    return {
      endpointId: result.endpointId,
      groupId: result.groupId,
      credential,
      reenrolled: result.reenrolled,
      publicKeys: await this.signing.trustedKeys(),
      keyList: await this.signing.signedKeyList(),
      assignment: await this.assignment.signedFor(result.endpointId),
    };
  }
}
