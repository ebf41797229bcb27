// Fleet hook inventory: agents' reports, fleet views, findings, and the release impact preview.
import { Inject, Injectable } from '@nestjs/common';
import {
  HOOK_EVENTS,
  type InventoryDocument,
  inventoryDigest,
  inventoryDocumentSchema,
  PolicyDocumentSchema,
  previewRelease,
  releaseCanSuppress,
} from '@hookwarden/hook-core';
import { z } from 'zod';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { decodeCursor, encodeCursor, type Page } from '../common/pagination';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import type { FleetHook } from './inventory.dto';
import { type FleetFilter, InventoryRepository } from './inventory.repository';
import { type AckDecision, ackDecision, ackRequiredMessage } from './preview-ack';
import { previewJson } from './preview-json';

/** A policy version as the preview reads it: its id, structured policy and managed file paths. */
export interface PreviewedVersion {
  id: string;
  policy: unknown;
  files: string[];
}

/** The release preview answered by GET /v1/groups/{id}/release-preview. */
export type ReleasePreviewView = ReturnType<typeof previewRelease> &
  AckDecision & {
    groupId: string;
    policyVersionId: string;
  };

const offsetKey = z.object({ o: z.number().int().min(0).max(10_000_000) }).strict();

// The zod issues of a refused inventory as located details (JSON path in the report).
function details(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.slice(0, 50).map((i) => ({
    path: `$${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`,
    message: i.message,
  }));
}

@Injectable()
export class InventoryService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: InventoryRepository,
  ) {}

  // Validates and stores an agent's inventory (the digest must match the content).
  async accept(
    endpoint: { endpointId: string; groupId: string },
    body: unknown,
  ): Promise<{ changed: boolean; digest: string; hooks: number }> {
    const parsed = inventoryDocumentSchema.safeParse(body);
    if (!parsed.success) {
      throw new ApiError('validation_failed', 'The inventory does not match its schema', details(parsed.error));
    }
    const doc = parsed.data;
    const { collectedAt: _c, digest, ...content } = doc;
    if (inventoryDigest(content) !== digest) {
      throw new ApiError('validation_failed', 'The inventory digest does not match its content', [
        { path: '$.digest', message: 'not the sha256 of the canonical report' },
      ]);
    }
    const { changed } = await this.repo.store(endpoint.endpointId, endpoint.groupId, doc);
    return { changed, digest, hooks: doc.hooks.length };
  }

  // Hooks across the fleet by definition hash.
  async fleetHooks(query: FleetFilter & { limit: number; cursor?: string }): Promise<Page<FleetHook>> {
    const offset = decodeCursor('inventory-hooks', query.cursor, offsetKey)?.o ?? 0;
    const rows = await this.repo.fleetHooks(query, query.limit + 1, offset);
    const more = rows.length > query.limit;
    return {
      items: rows.slice(0, query.limit),
      nextCursor: more ? encodeCursor('inventory-hooks', { o: offset + query.limit }) : null,
    };
  }

  // Plugins across the fleet.
  async plugins(
    groupId?: string,
  ): Promise<{ items: Array<{ plugin: string; endpoints: number; hooks: number; untrusted: number }> }> {
    return { items: await this.repo.plugins(groupId) };
  }

  // Inventory changes, newest first.
  async changes(query: {
    endpointId?: string;
    since?: string;
    limit: number;
    cursor?: string;
  }): Promise<Page<unknown>> {
    const offset = decodeCursor('inventory-changes', query.cursor, offsetKey)?.o ?? 0;
    const rows = await this.repo.changes(
      {
        ...(query.endpointId ? { endpointId: query.endpointId } : {}),
        ...(query.since ? { since: new Date(query.since) } : {}),
      },
      query.limit + 1,
      offset,
    );
    const more = rows.length > query.limit;
    return {
      items: rows.slice(0, query.limit).map((r) => ({ ...r, at: r.at.toISOString() })),
      nextCursor: more ? encodeCursor('inventory-changes', { o: offset + query.limit }) : null,
    };
  }

  // One endpoint's latest inventory.
  async endpoint(endpointId: string): Promise<unknown> {
    const row = await this.repo.latest(endpointId);
    if (!row) throw new ApiError('not_found', `Endpoint ${endpointId} has not reported an inventory`);
    return {
      endpointId,
      digest: row.digest,
      collectedAt: row.collectedAt.toISOString(),
      receivedAt: row.receivedAt.toISOString(),
      changedAt: row.changedAt.toISOString(),
      inventory: row.doc,
    };
  }

  // The preview as response JSON text (the stored keys spliced in unparsed; see preview-json.ts).
  async previewJson(groupId: string, policyVersionId: string): Promise<string> {
    return previewJson(await this.preview(groupId, policyVersionId));
  }

  // What releasing a version to a group would change on its endpoints.
  async preview(groupId: string, policyVersionId: string): Promise<ReleasePreviewView> {
    const version = await this.repo.version(groupId, policyVersionId);
    if (!version)
      throw new ApiError(
        'not_found',
        `Policy version ${policyVersionId} is not a version of group ${groupId}'s policies`,
      );
    return this.previewOf(groupId, { id: policyVersionId, ...version });
  }

  // The preview of a version already loaded (a release passes the one it builds its bundle from).
  private async previewOf(groupId: string, version: PreviewedVersion): Promise<ReleasePreviewView> {
    const policyVersionId = version.id;
    const policy = PolicyDocumentSchema.parse(version.policy);
    // Each endpoint's inventory as its preview summary (columns written with the document at ingest).
    const endpoints = (await this.repo.groupEndpoints(groupId)).map((e) => ({
      endpointId: e.id,
      hostname: e.hostname,
      agentVersion: e.agentVersion,
      contractVersion: e.contractVersion,
      inventory: e.inventory,
    }));
    const preview = previewRelease(policy, endpoints, {
      release: { groupId, policyVersionId },
      now: new Date(),
      staleAfterMs: this.config.INVENTORY_STALE_AFTER_SEC * 1000,
      files: version.files,
    });
    const decision = ackDecision(preview, releaseCanSuppress(policy), this.config.RELEASE_PREVIEW_ACK_THRESHOLD);
    return { groupId, policyVersionId, ...preview, ...decision };
  }

  // Refuses a release whose preview needs an acknowledgement it was not given (428, naming the digest to send).
  // A version that cannot suppress anything needs no preview (no inventory is read: large groups release at once).
  // `version` is the one the release was built from (loaded once by the caller, checked to belong to the group).
  async requireAck(groupId: string, version: PreviewedVersion, ack: string | undefined): Promise<void> {
    if (!releaseCanSuppress(PolicyDocumentSchema.parse(version.policy))) return;
    const policyVersionId = version.id;
    const preview = await this.previewOf(groupId, version);
    if (!preview.requiresAck || ack === preview.digest) return;
    throw new ApiError('precondition_required', ackRequiredMessage(preview, preview, groupId, policyVersionId), [
      { field: 'previewAck', path: '$.previewAck', message: `acknowledge preview ${preview.digest}` },
    ]);
  }

  // Known-bad hashes and managed hooks missing where the layer is reported applied.
  async findings(filter: { groupId?: string; endpointId?: string }): Promise<{ items: unknown[] }> {
    const items: unknown[] = [];
    for (const r of await this.repo.knownBad(filter)) {
      items.push({
        kind: 'known_bad_hook',
        endpointId: r.endpoint_id,
        hostname: r.hostname,
        hash: r.hash,
        key: r.key,
        detail: r.reason,
      });
    }
    for (const r of await this.repo.managedState(filter)) {
      const policy = PolicyDocumentSchema.safeParse(r.policy);
      const doc = inventoryDocumentSchema.safeParse(r.doc);
      if (!policy.success || !doc.success) continue;
      for (const [event, want] of managedCounts(policy.data)) {
        const have = doc.data.hooks.filter((h) => h.layer === 'managed' && h.event === event).length;
        if (have < want) {
          items.push({
            kind: 'managed_hook_missing',
            endpointId: r.endpoint_id,
            hostname: r.hostname,
            hash: null,
            key: null,
            detail: `revision ${r.applied_revision} is reported applied, but the endpoint's engine finds ${have} of ${want} managed ${event} hooks`,
          });
        }
      }
    }
    return { items };
  }

  // The admin deny list of hook hashes.
  async deniedHashes(): Promise<{ items: unknown[] }> {
    return {
      items: (await this.repo.deniedHashes()).map((d) => ({ ...d, createdAt: d.createdAt.toISOString() })),
    };
  }

  // Adds a hash to the deny list.
  async denyHash(hash: string, reason: string, ctx: AuditContext): Promise<unknown> {
    const row = await this.repo.denyHash(hash, reason, ctx);
    return { ...row, createdAt: row.createdAt.toISOString() };
  }

  // Removes a hash from the deny list.
  async undenyHash(hash: string, ctx: AuditContext): Promise<{ removed: true }> {
    if (!(await this.repo.undenyHash(hash, ctx))) throw new ApiError('not_found', `${hash} is not on the deny list`);
    return { removed: true };
  }
}

// Managed handlers per event in a policy.
function managedCounts(policy: z.infer<typeof PolicyDocumentSchema>): Map<string, number> {
  const out = new Map<string, number>();
  for (const event of HOOK_EVENTS) {
    const groups = policy.hooks?.[event];
    if (!Array.isArray(groups)) continue;
    const n = groups.reduce((sum, g) => sum + g.hooks.filter((h) => h.type === 'command').length, 0);
    if (n > 0) out.set(event, n);
  }
  return out;
}

export type { InventoryDocument };
