// Admin view of enrolled endpoints: list (filters, keyset pagination), get, move, revoke, and the admin's admission
// decisions (approve or reject a pending duplicate, re-admit a revoked endpoint).
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthService } from '../auth/auth.service';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { signCursor, verifyCursor } from '../common/cursor';
import { isoTime } from '../common/query';
import { fleetStateOf, inFleetOf } from '../fleet/fleet-state';
import { BundleEventsService } from '../releases/bundle-events.service';
import type { Admission, AdmissionAction } from './admission';
import { type EndpointDecision, type EndpointView, readLastStatus } from './endpoints.dto';
import {
  type DuplicateSummary,
  type EndpointFilter,
  type EndpointRow,
  EndpointsRepository,
} from './endpoints.repository';

/** What the view of a row needs beyond the row: policy versions of applied releases, duplicated endpoints. */
interface ViewRefs {
  versions: Map<string, number>;
  duplicates: Map<string, DuplicateSummary>;
}

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

  // Loads what the views of these rows refer to (two queries at most).
  private async refs(rows: EndpointRow[]): Promise<ViewRefs> {
    const [versions, duplicates] = await Promise.all([
      this.repo.versionsOfReleases([...new Set(rows.map((r) => r.appliedReleaseId).filter((x): x is string => !!x))]),
      this.repo.duplicatesOf([...new Set(rows.map((r) => r.duplicateOf).filter((x): x is string => !!x))]),
    ]);
    return { versions, duplicates };
  }

  // Converts a row to its public view.
  private view(row: EndpointRow, { versions, duplicates }: ViewRefs): EndpointView {
    const dup = row.duplicateOf ? duplicates.get(row.duplicateOf) : undefined;
    return {
      id: row.id,
      groupId: row.groupId,
      groupName: row.group.name,
      assignmentEpoch: row.assignmentEpoch,
      hostname: row.hostname,
      platform: row.platform,
      machineId: row.machineId,
      agentVersion: row.agentVersion,
      contractVersion: row.contractVersion,
      state: row.revokedAt ? 'revoked' : row.state,
      fleetState: fleetStateOf(row, Date.now()),
      inFleet: inFleetOf(row),
      enrolledAt: row.enrolledAt.toISOString(),
      lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
      admission: row.admission as Admission,
      duplicateOf: row.duplicateOf,
      duplicate: dup
        ? {
            id: dup.id,
            hostname: dup.hostname,
            groupId: dup.groupId,
            groupName: dup.groupName,
            lastSeenAt: dup.lastSeenAt?.toISOString() ?? null,
            admission: dup.admission as Admission,
            revokedAt: dup.revokedAt?.toISOString() ?? null,
          }
        : null,
      keyId: row.keyId,
      appliedRevision: row.appliedRevision,
      appliedDigest: row.appliedDigest,
      appliedReleaseId: row.appliedReleaseId,
      appliedPolicyVersion: row.appliedReleaseId ? (versions.get(row.appliedReleaseId) ?? null) : null,
      targetRevision: row.targetRevision,
      uploadsPending: row.uploadsPending,
      recordsDropped: row.recordsDropped,
      lastStatus: readLastStatus(row.lastStatus),
      shadow: { releaseId: row.shadowReleaseId, revision: row.shadowRevision, error: row.shadowError },
    };
  }

  // One page of endpoints.
  async list(filter: EndpointFilter, limit: number, cursor?: string) {
    const rows = await this.repo.list(filter, limit + 1, decodeCursor(cursor));
    const page = rows.slice(0, limit);
    const refs = await this.refs(page);
    return {
      items: page.map((r) => this.view(r, refs)),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
    };
  }

  // One endpoint.
  async get(id: string): Promise<EndpointView> {
    const row = await this.repo.get(id);
    if (!row) throw new ApiError('not_found', `Endpoint ${id} not found`);
    return this.view(row, await this.refs([row]));
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
    return this.view(r.row, await this.refs([r.row]));
  }

  // Revokes an endpoint: its credential stops working at once on every instance (announced on bundle-events).
  async revoke(id: string, ctx: AuditContext): Promise<EndpointView> {
    const row = await this.repo.revoke(id, ctx);
    if (!row) throw new ApiError('not_found', `Endpoint ${id} not found`);
    this.auth.invalidateEndpoint(id);
    await this.events.publishRevoked(id);
    return this.view(row, await this.refs([row]));
  }

  // Approves a pending duplicate: it becomes active and the endpoint it duplicates is retired, whose credential stops
  // working at once on every instance (its held long polls authenticate again and get 401).
  async approve(id: string, ctx: AuditContext): Promise<EndpointDecision> {
    const { row, retired } = await this.decide(id, 'approve', ctx);
    const old = retired ? await this.repo.get(retired) : null;
    const refs = await this.refs(old ? [row, old] : [row]);
    return { endpoint: this.view(row, refs), retired: old ? this.view(old, refs) : null };
  }

  // Rejects a pending duplicate (final): it never gets a working credential.
  async reject(id: string, ctx: AuditContext): Promise<EndpointView> {
    const { row } = await this.decide(id, 'reject', ctx);
    return this.view(row, await this.refs([row]));
  }

  // Re-admits a revoked endpoint: its credential works again on every instance.
  async readmit(id: string, ctx: AuditContext): Promise<EndpointView> {
    const { row } = await this.decide(id, 'readmit', ctx);
    return this.view(row, await this.refs([row]));
  }

  // Runs one decision, maps refusals to 404/409, and tells every instance whose credential changed.
  private async decide(id: string, action: AdmissionAction, ctx: AuditContext) {
    const r = await this.repo.decide(id, action, ctx);
    if (!r.ok) {
      if (r.reason === 'not_found') throw new ApiError('not_found', `Endpoint ${id} not found`);
      if (r.reason === 'wrong_state') {
        throw new ApiError('conflict', r.message, { admission: r.admission, revoked: r.revoked });
      }
      throw new ApiError(
        'conflict',
        r.holder
          ? `Another admitted endpoint (${r.holder}) holds this machine id: revoke it first`
          : 'Another admitted endpoint took this machine id meanwhile; reload and decide again',
        { holder: r.holder },
      );
    }
    for (const changed of [id, ...(r.retired ? [r.retired] : [])]) this.auth.invalidateEndpoint(changed);
    if (action === 'readmit') await this.events.publishReadmitted(id);
    else await this.events.publishCredentialRotated(id);
    if (r.retired) await this.events.publishCredentialRotated(r.retired);
    return r;
  }
}
