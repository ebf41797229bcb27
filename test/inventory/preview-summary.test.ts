// The release preview reads each inventory's summary columns (written with the document at ingest): the migration
// that added them backfills inventories stored before it, and must give what ingest writes (hook-core's summary);
// the response splices that stored text in unparsed.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inventorySummary, previewRelease, type InventoryDocument, type InventoryHook } from '@hookwarden/hook-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewJson } from '../../apps/api/src/inventory/preview-json';
import { createTestDatabase, type TestDatabase } from '../support/db';

const MIGRATION = path.resolve(
  __dirname,
  '../../prisma/migrations/20261202055336_perfdb_inventory_preview_summary/migration.sql',
);

let db: TestDatabase;
let client: pg.Client;

const hook = (layer: InventoryHook['layer'], key: string, extra: Partial<InventoryHook> = {}): InventoryHook => ({
  user: 'alice',
  layer,
  event: 'PreToolUse',
  matcher: null,
  key,
  hash: `sha256:${'a'.repeat(64)}`,
  trust: layer === 'managed' ? 'managed' : 'trusted',
  managed: layer === 'managed',
  plugin: null,
  project: null,
  fate: 'run',
  skipReason: null,
  commandHash: null,
  program: null,
  command: null,
  ...extra,
});

const doc = (hooks: InventoryHook[], hooksEnabled = true) =>
  ({
    schema: 'hookwarden.inventory/1',
    collectedAt: '2026-12-01T00:00:00.000Z',
    commandMode: 'program',
    policyRevision: null,
    hooksEnabled,
    allowManagedHooksOnly: false,
    users: [],
    hooks,
    skippedSources: [],
    warnings: [],
    digest: `sha256:${'b'.repeat(64)}`,
  }) satisfies InventoryDocument;

const docs: InventoryDocument[] = [
  doc([]),
  doc([
    hook('user', 'user:b'),
    hook('user', 'user:a'),
    hook('user', 'user:a'),
    hook('project', 'project:é/ü'),
    hook('plugin', 'plugin:x', { fate: 'skipped', skipReason: 'untrusted' }),
    hook('plugin', 'plugin:y'),
    hook('session', 'session:"quoted"\\back'),
    hook('managed', 'managed:0'),
    hook('user', 'user:flagged-managed', { managed: true }),
  ]),
  doc([hook('project', 'project:z'), hook('user', 'user:Z'), hook('user', 'user:\u{1F600}')], false),
];

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe('inventory preview summary migration', () => {
  it('backfills stored inventories with the summary ingest writes', async () => {
    const groupId = randomUUID();
    await client.query(`INSERT INTO groups (id, name, updated_at) VALUES ($1, $2, now())`, [groupId, `g-${groupId}`]);
    const ids: string[] = [];
    for (const [i, d] of docs.entries()) {
      const id = randomUUID();
      ids.push(id);
      await client.query(
        `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
         VALUES ($1, $2, $3, $3, 'linux', '0.1.0', $4)`,
        [id, groupId, `summary-${i}-${id}`, `hash-${id}`],
      );
      // As stored before the migration: the document only (the columns at their defaults).
      await client.query(
        `INSERT INTO endpoint_inventories (endpoint_id, digest, collected_at, command_mode, hooks_enabled, hook_count, doc)
         VALUES ($1, $2, now(), 'program', $3, $4, $5)`,
        [id, d.digest, d.hooksEnabled, d.hooks.length, JSON.stringify(d)],
      );
    }
    const sql = readFileSync(MIGRATION, 'utf8');
    await client.query(sql.slice(sql.indexOf('UPDATE')));
    const { rows } = await client.query<{
      endpoint_id: string;
      hooks_enabled: boolean;
      u: number;
      p: number;
      g: number;
      s: number;
      keys: string;
    }>(
      `SELECT endpoint_id, hooks_enabled, suppressible_user AS u, suppressible_project AS p,
              suppressible_plugin AS g, suppressible_session AS s, suppressible_keys AS keys
         FROM endpoint_inventories WHERE endpoint_id = ANY($1::uuid[])`,
      [ids],
    );
    expect(rows).toHaveLength(docs.length);
    for (const [i, d] of docs.entries()) {
      const r = rows.find((x) => x.endpoint_id === ids[i])!;
      const want = inventorySummary(d);
      // Backfilled keys are in code-point order; the preview puts them in code-unit order (the same here but for
      // characters beyond U+FFFF, which it re-sorts).
      expect({
        hooksEnabled: r.hooks_enabled,
        suppressible: { user: r.u, project: r.p, plugin: r.g, session: r.s },
        suppressibleKeysJson: JSON.stringify((JSON.parse(r.keys) as string[]).sort()),
      }).toEqual(want);
    }
    // The text as JSON.stringify writes it (the preview splices it into its response and digest unparsed).
    expect(rows.find((x) => x.endpoint_id === ids[1])!.keys).toBe(
      JSON.stringify(['plugin:y', 'project:é/ü', 'session:"quoted"\\back', 'user:a', 'user:a', 'user:b']),
    );
  });

  it('serializes a preview with the stored keys text as JSON.stringify would the keys', () => {
    const now = new Date('2026-12-01T12:00:00.000Z');
    const endpoints = docs.map((d, i) => ({
      endpointId: `e${i}`,
      hostname: `h"${i}`,
      agentVersion: '0.1.0',
      contractVersion: null,
      inventory: i === 0 ? null : { summary: inventorySummary(d), receivedAt: now },
    }));
    for (const policy of [{ allow_managed_hooks_only: true }, { features: { hooks: false } }]) {
      const view = {
        groupId: 'g',
        ...previewRelease(policy, endpoints, { now, staleAfterMs: 60_000, files: [] }),
        requiresAck: true,
      };
      const { perEndpoint, ...rest } = view;
      const want = {
        ...rest,
        perEndpoint: perEndpoint.map((e) => {
          const { suppressedKeysJson: _j, ...p } = { ...e };
          return { ...p, suppressedKeys: e.suppressedKeys };
        }),
      };
      expect(JSON.parse(previewJson(view))).toEqual(want);
      // Serialized by JSON.stringify (anything but the preview route), an impact still carries its keys.
      expect(JSON.parse(JSON.stringify(view))).toEqual(want);
    }
  });
});
