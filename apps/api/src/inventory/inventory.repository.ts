// Persistence of endpoint hook inventories (latest report, per-hook rows, change history) and fleet queries.
import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import { type InventoryDocument, type InventorySummary, inventorySummary } from '@hookwarden/hook-core';
import type pg from 'pg';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';

/** A canonical uuid (what endpoint ids are). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Most hook keys named per side in one change entry. */
const MAX_CHANGE_KEYS = 200;

export interface FleetFilter {
  groupId?: string;
  layer?: string;
  trust?: string;
  program?: string;
  commandContains?: string;
  plugin?: string;
  hash?: string;
}

export interface FleetHookRow {
  hash: string;
  endpoints: number;
  layers: string[];
  trust: Record<string, number>;
  events: string[];
  programs: string[];
  plugins: string[];
  running: number;
  denied: boolean;
  command: string | null;
}

// Escapes LIKE wildcards so a substring search is literal.
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

@Injectable()
export class InventoryRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pools: PgPools,
  ) {}

  // Stores an endpoint's inventory: a new digest replaces its hook rows and records what changed; the same digest
  // only moves the received time. One transaction on the write pool, serialized per endpoint, in three round trips
  // (each costs a wake-up of both processes, most of an ingest's time on a busy machine): lock + what is stored now;
  // one statement writing the document, its preview summary, the hook rows (INSERT … SELECT FROM unnest) and the
  // change entry; COMMIT.
  async store(endpointId: string, groupId: string, doc: InventoryDocument): Promise<{ changed: boolean }> {
    // Inlined into the first (parameterless, multi-statement) round trip: only a canonical uuid gets there.
    if (!UUID.test(endpointId)) throw new Error(`not an endpoint id: ${endpointId}`);
    const client = await this.pools.write.connect();
    try {
      const id = `'${endpointId}'::uuid`;
      const [, , previous, old] = (await client.query(
        `BEGIN;
         SELECT pg_advisory_xact_lock(hashtext('inventory:${endpointId}'));
         SELECT digest FROM endpoint_inventories WHERE endpoint_id = ${id};
         SELECT "user", key, hash, layer FROM endpoint_inventory_hooks WHERE endpoint_id = ${id} ORDER BY id`,
      )) as unknown as [
        unknown,
        unknown,
        pg.QueryResult<{ digest: string }>,
        pg.QueryResult<{ user: string; key: string; hash: string; layer: string }>,
      ];
      const collectedAt = new Date(doc.collectedAt);
      if (previous.rows[0]?.digest === doc.digest) {
        await client.query(
          'UPDATE endpoint_inventories SET received_at = now(), collected_at = $2 WHERE endpoint_id = $1',
          [endpointId, collectedAt],
        );
        await client.query('COMMIT');
        return { changed: false };
      }
      const key = (h: { user: string; key: string; hash: string }): string => `${h.user}\u0000${h.key}\u0000${h.hash}`;
      const before = new Map(old.rows.map((h) => [key(h), { key: h.key, hash: h.hash, layer: h.layer }]));
      const after = new Map(doc.hooks.map((h) => [key(h), { key: h.key, hash: h.hash, layer: h.layer }]));
      const added = [...after].filter(([k]) => !before.has(k)).map(([, v]) => v);
      const removed = [...before].filter(([k]) => !after.has(k)).map(([, v]) => v);
      const summary = inventorySummary(doc);
      const col = <K extends keyof InventoryDocument['hooks'][number]>(k: K) => doc.hooks.map((h) => h[k]);
      await client.query(
        `WITH gone AS (DELETE FROM endpoint_inventory_hooks WHERE endpoint_id = $1),
         latest AS (
           INSERT INTO endpoint_inventories
             (endpoint_id, digest, collected_at, received_at, changed_at, command_mode, policy_revision, hooks_enabled,
              hook_count, doc, suppressible_user, suppressible_project, suppressible_plugin, suppressible_session,
              suppressible_keys)
           VALUES ($1, $3, $4, now(), now(), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           ON CONFLICT (endpoint_id) DO UPDATE SET digest = EXCLUDED.digest, collected_at = EXCLUDED.collected_at,
             received_at = EXCLUDED.received_at, changed_at = EXCLUDED.changed_at,
             command_mode = EXCLUDED.command_mode, policy_revision = EXCLUDED.policy_revision,
             hooks_enabled = EXCLUDED.hooks_enabled, hook_count = EXCLUDED.hook_count, doc = EXCLUDED.doc,
             suppressible_user = EXCLUDED.suppressible_user, suppressible_project = EXCLUDED.suppressible_project,
             suppressible_plugin = EXCLUDED.suppressible_plugin, suppressible_session = EXCLUDED.suppressible_session,
             suppressible_keys = EXCLUDED.suppressible_keys),
         change AS (
           INSERT INTO endpoint_inventory_changes (id, endpoint_id, at, digest, added, removed, changes)
           VALUES (gen_random_uuid(), $1, now(), $3, $15, $16, $17))
         INSERT INTO endpoint_inventory_hooks
           (endpoint_id, group_id, "user", layer, event, matcher, key, hash, trust, managed, plugin, project, fate,
            skip_reason, command_hash, program, command)
         SELECT $1, $2, * FROM unnest($18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[],
           $24::text[], $25::boolean[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[],
           $32::text[])`,
        [
          endpointId,
          groupId,
          doc.digest,
          collectedAt,
          doc.commandMode,
          doc.policyRevision,
          doc.hooksEnabled,
          doc.hooks.length,
          JSON.stringify(doc),
          summary.suppressible.user,
          summary.suppressible.project,
          summary.suppressible.plugin,
          summary.suppressible.session,
          summary.suppressibleKeysJson,
          added.length,
          removed.length,
          JSON.stringify({ added: added.slice(0, MAX_CHANGE_KEYS), removed: removed.slice(0, MAX_CHANGE_KEYS) }),
          col('user'),
          col('layer'),
          col('event'),
          col('matcher'),
          col('key'),
          col('hash'),
          col('trust'),
          col('managed'),
          col('plugin'),
          col('project'),
          col('fate'),
          col('skipReason'),
          col('commandHash'),
          col('program'),
          col('command'),
        ],
      );
      await client.query('COMMIT');
      return { changed: true };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // Hooks across the fleet grouped by definition hash, most widespread first (offset pagination by rank).
  async fleetHooks(filter: FleetFilter, take: number, offset: number): Promise<FleetHookRow[]> {
    const where: Prisma.Sql[] = [Prisma.sql`e.revoked_at IS NULL AND e.admission = 'active'`];
    if (filter.groupId) where.push(Prisma.sql`h.group_id = ${filter.groupId}::uuid`);
    if (filter.layer) where.push(Prisma.sql`h.layer = ${filter.layer}`);
    if (filter.program) where.push(Prisma.sql`h.program = ${filter.program}`);
    if (filter.plugin) where.push(Prisma.sql`h.plugin = ${filter.plugin}`);
    if (filter.hash) where.push(Prisma.sql`h.hash = ${filter.hash}`);
    if (filter.commandContains) {
      where.push(Prisma.sql`h.command ILIKE ${`%${likeLiteral(filter.commandContains)}%`} ESCAPE '\\'`);
    }
    const having = filter.trust ? Prisma.sql`HAVING bool_or(h.trust = ${filter.trust})` : Prisma.empty;
    const rows = await this.prisma.$queryRaw<
      Array<{
        hash: string;
        endpoints: number;
        layers: string[];
        trust: Record<string, number>;
        events: string[];
        programs: (string | null)[];
        plugins: (string | null)[];
        running: number;
        denied: boolean;
        command: string | null;
      }>
    >`
      SELECT h.hash,
             count(DISTINCT h.endpoint_id)::int AS endpoints,
             array_agg(DISTINCT h.layer) AS layers,
             (SELECT jsonb_object_agg(t.trust, t.n) FROM (
                SELECT h2.trust, count(DISTINCT h2.endpoint_id)::int AS n FROM endpoint_inventory_hooks h2
                WHERE h2.hash = h.hash GROUP BY h2.trust) t) AS trust,
             array_agg(DISTINCT h.event) AS events,
             array_agg(DISTINCT h.program) AS programs,
             array_agg(DISTINCT h.plugin) AS plugins,
             count(DISTINCT h.endpoint_id) FILTER (WHERE h.fate = 'run')::int AS running,
             EXISTS (SELECT 1 FROM denied_hook_hashes d WHERE d.hash = h.hash) AS denied,
             max(h.command) AS command
      FROM endpoint_inventory_hooks h JOIN endpoints e ON e.id = h.endpoint_id
      WHERE ${Prisma.join(where, ' AND ')}
      GROUP BY h.hash ${having}
      ORDER BY endpoints DESC, h.hash
      LIMIT ${take} OFFSET ${offset}`;
    return rows.map((r) => ({
      ...r,
      programs: r.programs.filter((p): p is string => p !== null),
      plugins: r.plugins.filter((p): p is string => p !== null),
      trust: r.trust ?? {},
    }));
  }

  // Plugins installed across the fleet.
  async plugins(
    groupId?: string,
  ): Promise<Array<{ plugin: string; endpoints: number; hooks: number; untrusted: number }>> {
    const group = groupId ? Prisma.sql`AND h.group_id = ${groupId}::uuid` : Prisma.empty;
    return this.prisma.$queryRaw`
      SELECT h.plugin, count(DISTINCT h.endpoint_id)::int AS endpoints, count(DISTINCT h.hash)::int AS hooks,
             count(DISTINCT h.endpoint_id) FILTER (WHERE h.trust IN ('untrusted', 'modified'))::int AS untrusted
      FROM endpoint_inventory_hooks h JOIN endpoints e ON e.id = h.endpoint_id
      WHERE h.plugin IS NOT NULL AND e.revoked_at IS NULL AND e.admission = 'active' ${group}
      GROUP BY h.plugin ORDER BY endpoints DESC, h.plugin LIMIT 1000`;
  }

  // Inventory changes, newest first, with their endpoint's hostname (null once the endpoint is gone).
  async changes(filter: { endpointId?: string; since?: Date }, take: number, offset: number) {
    const rows = await this.prisma.endpointInventoryChange.findMany({
      where: {
        ...(filter.endpointId ? { endpointId: filter.endpointId } : {}),
        ...(filter.since ? { at: { gte: filter.since } } : {}),
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take,
      skip: offset,
    });
    const ids = [...new Set(rows.map((r) => r.endpointId))];
    const names = new Map(
      (await this.prisma.endpoint.findMany({ where: { id: { in: ids } }, select: { id: true, hostname: true } })).map(
        (e) => [e.id, e.hostname],
      ),
    );
    return rows.map((r) => ({ ...r, hostname: names.get(r.endpointId) ?? null }));
  }

  // The latest inventory of an endpoint.
  latest(endpointId: string) {
    return this.prisma.endpointInventory.findUnique({ where: { endpointId } });
  }

  // The group's live endpoints with their agent, contract and latest inventory's preview summary (for the preview):
  // the summary columns written with each inventory, so no document is read or parsed.
  async groupEndpoints(groupId: string): Promise<
    Array<{
      id: string;
      hostname: string;
      agentVersion: string;
      contractVersion: number | null;
      inventory: { summary: InventorySummary; receivedAt: Date } | null;
    }>
  > {
    // One join on the write pool (the preview and the release's acknowledgement check must see the same rows).
    const { rows } = await this.pools.write.query<{
      id: string;
      hostname: string;
      agent_version: string;
      contract_version: number | null;
      received_at: Date | null;
      hooks_enabled: boolean | null;
      su: number;
      sp: number;
      sg: number;
      ss: number;
      keys: string | null;
    }>(
      `SELECT e.id, e.hostname, e.agent_version, e.contract_version, i.received_at, i.hooks_enabled,
              i.suppressible_user AS su, i.suppressible_project AS sp, i.suppressible_plugin AS sg,
              i.suppressible_session AS ss, i.suppressible_keys AS keys
         FROM endpoints e LEFT JOIN endpoint_inventories i ON i.endpoint_id = e.id
        WHERE e.group_id = $1 AND e.revoked_at IS NULL AND e.admission = 'active'`,
      [groupId],
    );
    // In id order, sorted here: PostgreSQL would sort the wide rows (the keys) on disk past work_mem, and canonical
    // lowercase uuid text compares as the uuids do.
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return rows.map((r) => ({
      id: r.id,
      hostname: r.hostname,
      agentVersion: r.agent_version,
      contractVersion: r.contract_version,
      inventory: r.received_at
        ? {
            receivedAt: r.received_at,
            summary: {
              hooksEnabled: r.hooks_enabled === true,
              suppressible: { user: r.su, project: r.sp, plugin: r.sg, session: r.ss },
              suppressibleKeysJson: r.keys ?? '[]',
            },
          }
        : null,
    }));
  }

  // A policy version of a group, with its structured policy and file paths (null when not that group's).
  async version(groupId: string, versionId: string): Promise<{ policy: unknown; files: string[] } | null> {
    const row = await this.prisma.policyVersion.findFirst({
      where: { id: versionId, policy: { groupId } },
      select: { structured: true, files: { select: { path: true } } },
    });
    return row ? { policy: row.structured, files: row.files.map((f) => f.path) } : null;
  }

  // The admin's known-bad hashes.
  deniedHashes() {
    return this.prisma.deniedHookHash.findMany({ orderBy: { createdAt: 'desc' } });
  }

  // Adds (or re-words) a known-bad hash, audited.
  async denyHash(hash: string, reason: string, ctx: AuditContext) {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.deniedHookHash.upsert({
        where: { hash },
        create: { hash, reason, createdBy: ctx.actorName },
        update: { reason },
      });
      await appendAudit(tx, ctx, {
        action: 'inventory.deny_hash',
        targetType: 'hook_hash',
        targetId: hash,
        details: { reason },
      });
      return row;
    });
  }

  // Removes a known-bad hash, audited; false when it was not listed.
  async undenyHash(hash: string, ctx: AuditContext): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.deniedHookHash.deleteMany({ where: { hash } });
      if (count === 0) return false;
      await appendAudit(tx, ctx, {
        action: 'inventory.undeny_hash',
        targetType: 'hook_hash',
        targetId: hash,
        details: {},
      });
      return true;
    });
  }

  // Known-bad hooks present in inventories.
  knownBad(filter: { groupId?: string; endpointId?: string }) {
    const g = filter.groupId ? Prisma.sql`AND h.group_id = ${filter.groupId}::uuid` : Prisma.empty;
    const e = filter.endpointId ? Prisma.sql`AND h.endpoint_id = ${filter.endpointId}::uuid` : Prisma.empty;
    return this.prisma.$queryRaw<
      Array<{ endpoint_id: string; hostname: string; hash: string; key: string; reason: string }>
    >`
      SELECT h.endpoint_id, e.hostname, h.hash, h.key, d.reason
      FROM endpoint_inventory_hooks h JOIN denied_hook_hashes d ON d.hash = h.hash JOIN endpoints e ON e.id = h.endpoint_id
      WHERE e.revoked_at IS NULL AND e.admission = 'active' ${g} ${e}
      ORDER BY e.hostname, h.key LIMIT 1000`;
  }

  // Endpoints that report a revision applied, with their inventory's managed hooks and that revision's policy.
  managedState(filter: { groupId?: string; endpointId?: string }) {
    const g = filter.groupId ? Prisma.sql`AND e.group_id = ${filter.groupId}::uuid` : Prisma.empty;
    const e = filter.endpointId ? Prisma.sql`AND e.id = ${filter.endpointId}::uuid` : Prisma.empty;
    return this.prisma.$queryRaw<
      Array<{ endpoint_id: string; hostname: string; doc: unknown; applied_revision: number | null; policy: unknown }>
    >`
      SELECT e.id AS endpoint_id, e.hostname, i.doc, e.applied_revision,
             (SELECT v.structured FROM releases r JOIN policy_versions v ON v.id = r.policy_version_id
               WHERE r.group_id = e.group_id AND r.revision = e.applied_revision LIMIT 1) AS policy
      FROM endpoints e JOIN endpoint_inventories i ON i.endpoint_id = e.id
      WHERE e.revoked_at IS NULL AND e.admission = 'active' AND e.applied_revision IS NOT NULL
        AND i.policy_revision = e.applied_revision ${g} ${e}
      LIMIT 5000`;
  }
}
