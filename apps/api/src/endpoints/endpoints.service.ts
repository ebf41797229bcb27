// Admin view of enrolled endpoints: list (filters, keyset pagination), get, revoke.
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthService } from '../auth/auth.service';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { signCursor, verifyCursor } from '../common/cursor';
import { isoTime } from '../common/query';
import { BundleEventsService } from '../releases/bundle-events.service';
import { type EndpointView, readLastStatus } from './endpoints.dto';
import { type EndpointFilter, type EndpointRow, EndpointsRepository } from './endpoints.repository';

/** The shape of an endpoint-list cursor position (enrolledAt, id). */
const endpointKey = z.object({ t: isoTime(), id: z.guid() }).strict();

// Encodes a keyset position as a signed opaque cursor.
function encodeCursor(row: EndpointRow): string {
  return signCursor('endpoints', { t: row.enrolledAt.toISOString(), id: row.id });
}

// Decodes a cursor this server issued for this list, or throws a 400 naming the parameter.
function decodeCursor(cursor: string | undefined): { enrolledAt: Date; id: string } | undefined {
  const key = verifyCursor('endpoints', cursor, endpointKey);
  return key ? { enrolledAt: new Date(key.t), id: key.id } : undefined;
}

@Injectable()
export class EndpointsService {
  constructor(
    private readonly repo: EndpointsRepository,
    private readonly auth: AuthService,
    private readonly events: BundleEventsService,
  ) {}

  // Converts a row to its public view.
  private view(row: EndpointRow, versions: Map<string, number>): EndpointView {
    return {
      id: row.id,
      groupId: row.groupId,
      groupName: row.group.name,
      assignmentEpoch: row.assignmentEpoch,
      hostname: row.hostname,
      platform: row.platform,
      machineId: row.machineId,
      agentVersion: row.agentVersion,
      state: row.revokedAt ? 'revoked' : row.state,
      enrolledAt: row.enrolledAt.toISOString(),
      lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
      appliedRevision: row.appliedRevision,
      appliedDigest: row.appliedDigest,
      appliedReleaseId: row.appliedReleaseId,
      appliedPolicyVersion: row.appliedReleaseId ? (versions.get(row.appliedReleaseId) ?? null) : null,
      targetRevision: row.targetRevision,
      uploadsPending: row.uploadsPending,
      recordsDropped: row.recordsDropped,
      lastStatus: readLastStatus(row.lastStatus),
    };
  }

  // One page of endpoints.
  async list(filter: EndpointFilter, limit: number, cursor?: string) {
    const rows = await this.repo.list(filter, limit + 1, decodeCursor(cursor));
    const page = rows.slice(0, limit);
    const versions = await this.repo.versionsOfReleases([
      ...new Set(page.map((r) => r.appliedReleaseId).filter((x): x is string => !!x)),
    ]);
    return {
      items: page.map((r) => this.view(r, versions)),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
    };
  }

  // One endpoint.
  async get(id: string): Promise<EndpointView> {
    const row = await this.repo.get(id);
    if (!row) throw new ApiError('not_found', `Endpoint ${id} not found`);
    const versions = await this.repo.versionsOfReleases(row.appliedReleaseId ? [row.appliedReleaseId] : []);
    return this.view(row, versions);
  }

  // Moves an endpoint to another group: its agent is told at once (held long polls end and re-authenticate on every
  // instance), fetches its new signed assignment (epoch + 1) and applies the new group's bundle.
  async move(id: string, groupId: string, ctx: AuditContext): Promise<EndpointView> {
    const r = await this.repo.move(id, groupId, ctx);
    if (r === 'no_endpoint') throw new ApiError('not_found', `Endpoint ${id} not found`);
    if (r === 'no_group') {
      throw new ApiError('not_found', `Group ${groupId} not found`, [{ path: '$.groupId', message: 'no such group' }]);
    }
    if (r.moved) {
      this.auth.invalidateEndpoint(id);
      await this.events.publishCredentialRotated(id);
    }
    const versions = await this.repo.versionsOfReleases(r.row.appliedReleaseId ? [r.row.appliedReleaseId] : []);
    return this.view(r.row, versions);
  }

  // Revokes an endpoint: its credential stops working at once on every instance (announced on bundle-events).
  async revoke(id: string, ctx: AuditContext): Promise<EndpointView> {
    const row = await this.repo.revoke(id, ctx);
    if (!row) throw new ApiError('not_found', `Endpoint ${id} not found`);
    this.auth.invalidateEndpoint(id);
    await this.events.publishRevoked(id);
    const versions = await this.repo.versionsOfReleases(row.appliedReleaseId ? [row.appliedReleaseId] : []);
    return this.view(row, versions);
  }
}
