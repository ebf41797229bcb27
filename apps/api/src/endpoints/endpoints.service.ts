// Admin view of enrolled endpoints: list (filters, keyset pagination), get, revoke.
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthService } from '../auth/auth.service';
import { ApiError } from '../common/api-error';
import { cursorCodec, timeIdKey } from '../common/cursor';
import { BundleEventsService } from '../releases/bundle-events.service';
import type { EndpointView } from './endpoints.dto';
import { type EndpointFilter, type EndpointRow, EndpointsRepository } from './endpoints.repository';

/** Keyset position on (enrolledAt, id). */
const cursors = cursorCodec('endpoints', timeIdKey);

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
      lastStatus: row.lastStatus ?? null,
    };
  }

  // One page of endpoints.
  async list(filter: EndpointFilter, limit: number, cursor?: string) {
    const after = cursors.decode(cursor);
    const rows = await this.repo.list(filter, limit + 1, after && { enrolledAt: new Date(after.t), id: after.id });
    const page = rows.slice(0, limit);
    const versions = await this.repo.versionsOfReleases([
      ...new Set(page.map((r) => r.appliedReleaseId).filter((x): x is string => !!x)),
    ]);
    return {
      items: page.map((r) => this.view(r, versions)),
      nextCursor:
        rows.length > limit
          ? cursors.encode({ t: page[page.length - 1]!.enrolledAt.toISOString(), id: page[page.length - 1]!.id })
          : null,
    };
  }

  // One endpoint.
  async get(id: string): Promise<EndpointView> {
    const row = await this.repo.get(id);
    if (!row) throw new ApiError('not_found', `Endpoint ${id} not found`);
    const versions = await this.repo.versionsOfReleases(row.appliedReleaseId ? [row.appliedReleaseId] : []);
    return this.view(row, versions);
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
