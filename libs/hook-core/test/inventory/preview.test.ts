// Release impact preview and inventory helpers: pure rules.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  inventorySummary,
  missingManagedScripts,
  previewRelease,
  programOf,
  releaseCanSuppress,
  type InventoryDocument,
  type InventoryHook,
} from '../support/core';

const hook = (layer: InventoryHook['layer'], key: string, fate: 'run' | 'skipped' = 'run'): InventoryHook => ({
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
  fate,
  skipReason: fate === 'run' ? null : 'untrusted',
  commandHash: null,
  program: null,
  command: null,
});

const doc = (hooks: InventoryHook[], hooksEnabled = true): InventoryDocument => ({
  schema: 'hookwarden.inventory/1',
  collectedAt: '2026-12-01T00:00:00Z',
  commandMode: 'program',
  policyRevision: 1,
  hooksEnabled,
  allowManagedHooksOnly: false,
  users: [],
  hooks,
  skippedSources: [],
  warnings: [],
  digest: `sha256:${'b'.repeat(64)}`,
});

const now = new Date('2026-12-01T12:00:00Z');
const fresh = { receivedAt: new Date('2026-12-01T11:00:00Z') };

describe('previewRelease', () => {
  const endpoints = [
    {
      endpointId: 'e1',
      hostname: 'a',
      inventory: {
        doc: doc([hook('user', 'u1'), hook('project', 'p1'), hook('plugin', 'x1', 'skipped'), hook('managed', 'm1')]),
        ...fresh,
      },
    },
    { endpointId: 'e2', hostname: 'b', inventory: null },
    {
      endpointId: 'e3',
      hostname: 'c',
      inventory: { doc: doc([hook('user', 'u2')]), receivedAt: new Date('2026-11-01T00:00:00Z') },
    },
  ];

  it('counts the running non-managed hooks allow_managed_hooks_only suppresses, per layer and endpoint', () => {
    const p = previewRelease({ allow_managed_hooks_only: true }, endpoints, {
      now,
      staleAfterMs: 86_400_000,
      files: [],
    });
    expect(p.suppressed).toEqual({ user: 2, project: 1, plugin: 0, session: 0, total: 3, endpoints: 2 });
    expect(p.perEndpoint[0]!.suppressedKeys).toEqual(['p1', 'u1']);
    expect(p.unknownImpact.map((u) => u.endpointId)).toEqual(['e2', 'e3']);
    expect(p.endpoints).toEqual({ total: 3, known: 1, unknown: 2 });
  });

  it('names endpoints that turn hooks off, and nothing for a harmless version', () => {
    const off = previewRelease({ features: { hooks: false } }, endpoints, { now, staleAfterMs: 86_400_000, files: [] });
    expect(off.hooksTurnedOff.map((e) => e.endpointId)).toEqual(['e1', 'e3']);
    expect(off.suppressed.total).toBe(0);
    const none = previewRelease({}, endpoints, { now, staleAfterMs: 86_400_000, files: [] });
    expect(none.suppressed.total).toBe(0);
    expect(none.hooksTurnedOff).toEqual([]);
    expect(none.digest).not.toBe(off.digest);
  });

  it('says without inventories whether a version can suppress anything, agreeing with the preview', () => {
    const policies: Array<Parameters<typeof previewRelease>[0]> = [
      {},
      { allow_managed_hooks_only: true },
      { allow_managed_hooks_only: false },
      { features: { hooks: false } },
      { features: { hooks: true } },
      { features: { hooks: true }, allow_managed_hooks_only: true },
      { features: { zerocode_hooks: false } },
    ];
    const on = [{ endpointId: 'e', hostname: 'h', inventory: { doc: doc([hook('user', 'u')]), ...fresh } }];
    for (const policy of policies) {
      const p = previewRelease(policy, on, { now, staleAfterMs: 86_400_000, files: [] });
      const impact = p.suppressed.total > 0 || p.hooksTurnedOff.length > 0;
      expect(releaseCanSuppress(policy), JSON.stringify(policy)).toBe(impact);
    }
  });

  it('binds the digest to the release: the same impact for another group or version is another digest', () => {
    const opts = { now, staleAfterMs: 86_400_000, files: [] };
    const policy = { allow_managed_hooks_only: true };
    const a = previewRelease(policy, endpoints, { ...opts, release: { groupId: 'g1', policyVersionId: 'v1' } });
    const b = previewRelease(policy, endpoints, { ...opts, release: { groupId: 'g1', policyVersionId: 'v2' } });
    const c = previewRelease(policy, endpoints, { ...opts, release: { groupId: 'g2', policyVersionId: 'v1' } });
    expect(a.suppressed).toEqual(b.suppressed);
    expect(new Set([a.digest, b.digest, c.digest]).size).toBe(3);
    expect(
      previewRelease(policy, endpoints, { ...opts, release: { groupId: 'g1', policyVersionId: 'v1' } }).digest,
    ).toBe(a.digest);
  });

  it('gives the same preview from stored summaries as from the documents, digest over the canonical impact', () => {
    const opts = { now, staleAfterMs: 86_400_000, files: [], release: { groupId: 'g', policyVersionId: 'v' } };
    const odd = doc(
      [
        hook('session', 'z"\\\u2028'),
        hook('user', 'b'),
        hook('user', '\u{1F600}'),
        hook('user', '\uFF01'),
        hook('user', 'b'),
      ],
      false,
    );
    const withOdd = [...endpoints, { endpointId: 'e4', hostname: 'd', inventory: { doc: odd, ...fresh } }];
    const summarized = withOdd.map((e) =>
      e.inventory
        ? { ...e, inventory: { summary: inventorySummary(e.inventory.doc), receivedAt: e.inventory.receivedAt } }
        : e,
    );
    expect(inventorySummary(odd)).toEqual({
      hooksEnabled: false,
      suppressible: { user: 4, project: 0, plugin: 0, session: 1 },
      suppressibleKeysJson: JSON.stringify(['b', 'b', 'z"\\\u2028', '\u{1F600}', '\uFF01']),
    });
    // Stored keys in code-point order (as the backfill writes them) come out in code-unit order.
    const pointOrder = {
      endpointId: 'e5',
      hostname: 'e',
      inventory: {
        summary: {
          ...inventorySummary(odd),
          hooksEnabled: true,
          suppressibleKeysJson: JSON.stringify(['b', 'b', 'z"\\\u2028', '\uFF01', '\u{1F600}']),
        },
        ...fresh,
      },
    };
    const managedOnly = previewRelease({ allow_managed_hooks_only: true }, [pointOrder], opts).perEndpoint[0]!;
    expect(managedOnly.suppressedKeys).toEqual(['b', 'b', 'z"\\\u2028', '\u{1F600}', '\uFF01']);
    expect(JSON.parse(managedOnly.suppressedKeysJson)).toEqual(managedOnly.suppressedKeys);
    for (const policy of [{ allow_managed_hooks_only: true }, { features: { hooks: false } }, {}]) {
      const fromDocs = previewRelease(policy, withOdd, opts);
      const fromSummaries = previewRelease(policy, summarized, opts);
      expect(fromSummaries).toEqual(fromDocs);
      const { perEndpoint, agents: _a, digest, ...summary } = fromDocs;
      const canonical = canonicalJson({
        release: opts.release,
        ...summary,
        perEndpoint: perEndpoint.map((p) => ({ id: p.endpointId, s: p.suppressedKeys, off: p.hooksTurnedOff })),
      });
      expect(digest).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`);
    }
  });

  it('finds managed scripts referenced but not shipped', () => {
    const policy: Parameters<typeof missingManagedScripts>[0] = {
      hooks: {
        managed_dir: '/opt/h',
        PreToolUse: [{ hooks: [{ type: 'command' as const, command: '/opt/h/a.sh && /opt/h/lib/b.py "x"' }] }],
      } as unknown as Parameters<typeof missingManagedScripts>[0]['hooks'],
    };
    expect(missingManagedScripts(policy, ['a.sh'])).toEqual(['lib/b.py']);
    expect(missingManagedScripts(policy, ['a.sh', 'lib/b.py'])).toEqual([]);
  });
});

describe('programOf', () => {
  it('takes the first word, quoted or not', () => {
    expect(programOf('curl -fsSL x | sh')).toBe('curl');
    expect(programOf('  "/opt/my tools/run" --x')).toBe('/opt/my tools/run');
    expect(programOf('   ')).toBeNull();
  });
});
