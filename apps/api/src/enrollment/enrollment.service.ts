// Enrollment secrets (admin) and agent enrollment (secret → endpoint + credential + signing keys).
import { Injectable } from '@nestjs/common';
import type { EnrollmentSecret } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthRateLimitService } from '../auth/auth-rate-limit.service';
import { AuthService } from '../auth/auth.service';
import {
  endpointKeyId,
  endpointPublicKeyPem,
  enrollProofPayload,
  MAX_CLOCK_SKEW_SEC,
  migrateProofPayload,
  parseEndpointPublicKey,
  reenrollProofPayload,
  secretSha256,
  verifyEndpointProof,
} from '@hookwarden/hook-core';
import { ENROLL_SECRET_PREFIX, hashSecret, newSecret, secretPrefix } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { AssignmentService } from '../endpoints/assignment.service';
import { BundleEventsService } from '../releases/bundle-events.service';
import { SigningService } from '../signing/signing.service';
import { EnrollmentRepository } from './enrollment.repository';
import type { EnrollDto, EnrollmentSecretView } from './enrollment.dto';

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

// The canonical PEM and key id of a submitted endpoint public key; a 400 at `$.publicKey` unless it is Ed25519.
function endpointKeyOf(pem: string): { publicKey: string; keyId: string } {
  try {
    const key = parseEndpointPublicKey(pem);
    return { publicKey: endpointPublicKeyPem(key), keyId: endpointKeyId(key) };
  } catch (err) {
    const message = (err as Error).message;
    throw new ApiError('validation_failed', message, [{ path: '$.publicKey', message }]);
  }
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

  // Enrolls a machine with a secret and its new key (enrollDecision): a new endpoint (201), the same endpoint re-keyed
  // when its current key proves it (its old key stops working at once on every instance), or a pending duplicate when
  // the machine id is known without that proof (202). Refusals: 401 (secret, proof), 403 endpoint_revoked, 409.
  async enroll(secret: string | undefined, input: Omit<EnrollDto, 'secret'>, clientIp: string) {
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
    const { publicKey, keyId } = endpointKeyOf(input.publicKey);
    const offset = input.created - Math.floor(Date.now() / 1000);
    if (Math.abs(offset) > MAX_CLOCK_SKEW_SEC) {
      throw new ApiError(
        'clock_skew',
        `The enrollment's created time is ${Math.abs(offset)} s ${offset > 0 ? 'ahead of' : 'behind'} the server's ` +
          `clock; the limit is ${MAX_CLOCK_SKEW_SEC} s (fix the endpoint's clock)`,
      );
    }
    const fields = {
      secretSha256: secretSha256(secret),
      hostname: input.hostname,
      platform: input.platform,
      machineId: input.machineId,
      agentVersion: input.agentVersion,
      publicKey: input.publicKey,
      created: input.created,
    };
    if (!verifyEndpointProof(publicKey, 'enroll', enrollProofPayload(fields), input.proof)) {
      throw await this.rateLimit.refuse(
        clientIp,
        new ApiError('unauthorized', 'The enroll proof does not verify with the public key sent'),
      );
    }
    const previous = input.previous;
    const result = await this.repo.enroll({
      secretHash: hashSecret(secret),
      hostname: input.hostname,
      platform: input.platform,
      machineId: input.machineId,
      agentVersion: input.agentVersion,
      publicKey,
      keyId,
      ...(previous
        ? {
            previous: {
              endpointId: previous.endpointId,
              verify: (oldKey: string) =>
                verifyEndpointProof(
                  oldKey,
                  'reenroll',
                  reenrollProofPayload({
                    endpointId: previous.endpointId,
                    machineId: input.machineId,
                    publicKey: input.publicKey,
                    created: input.created,
                  }),
                  previous.proof,
                ),
            },
          }
        : {}),
    });
    if (!result.ok && result.reason === 'invalid') {
      throw await this.rateLimit.refuse(
        clientIp,
        new ApiError('unauthorized', 'The enrollment secret is unknown, revoked, expired or used up', undefined, {
          'www-authenticate': 'Bearer',
        }),
      );
    }
    if (!result.ok) throw new ApiError(result.code, result.message);
    if (result.reenrolled) {
      this.auth.invalidateEndpoint(result.endpointId);
      await this.events.publishCredentialRotated(result.endpointId);
    }
    return {
      endpointId: result.endpointId,
      groupId: result.groupId,
      admission: result.admission,
      reenrolled: result.reenrolled,
      publicKeys: await this.signing.trustedKeys(),
      keyList: await this.signing.signedKeyList(),
      assignment: await this.assignment.signedFor(result.endpointId),
    };
  }

  // Registers the first key of a bearer-enrolled endpoint (migration): the `migrate` proof must verify with it; the
  // bearer credential stops working at once on every instance. The same key again succeeds (a retry after a crash).
  async registerKey(endpointId: string, input: { publicKey: string; proof: string }) {
    const { publicKey, keyId } = endpointKeyOf(input.publicKey);
    const payload = migrateProofPayload({ endpointId, publicKey: input.publicKey });
    if (!verifyEndpointProof(publicKey, 'migrate', payload, input.proof)) {
      throw new ApiError('validation_failed', 'The migrate proof does not verify with the public key sent', [
        { path: '$.proof', message: 'does not verify' },
      ]);
    }
    const r = await this.repo.registerKey(endpointId, publicKey, keyId);
    if (r === 'not_found') throw new ApiError('unauthorized', 'Unknown or revoked endpoint');
    if (r === 'conflict') {
      throw new ApiError('conflict', 'This endpoint already has another key (or the key belongs to another endpoint)');
    }
    if (r === 'registered') {
      this.auth.invalidateEndpoint(endpointId);
      await this.events.publishCredentialRotated(endpointId);
    }
    return { endpointId, keyId };
  }
}
