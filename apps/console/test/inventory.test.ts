// The inventory views' pure rules: reading a stored report defensively, change entries, URL filters, the
// acknowledgement sentence of a suppressing release.
import { describe, expect, it } from 'vitest';
import { ackSentence, hookFiltersOf, readChange, readInventory, suppressedSummary } from '../src/inventory';

const preview = (
  s: Partial<Record<'user' | 'project' | 'plugin' | 'session' | 'total' | 'endpoints', number>>,
  off = 0,
  unknown = 0,
) => ({
  suppressed: { user: 0, project: 0, plugin: 0, session: 0, total: 0, endpoints: 0, ...s },
  hooksTurnedOff: Array.from({ length: off }, (_, i) => ({ endpointId: `e${i}`, hostname: `h${i}` })),
  impactUnknown: unknown > 0,
  endpoints: { total: 3 + unknown, known: 3, unknown },
});

describe('readInventory', () => {
  it('keeps the reported fields and fills what is missing or mistyped', () => {
    const inv = readInventory({
      commandMode: 'program',
      policyRevision: 3,
      hooksEnabled: true,
      allowManagedHooksOnly: true,
      hooks: [
        {
          layer: 'user',
          event: 'Stop',
          key: 'k',
          hash: 'sha256:x',
          trust: 'untrusted',
          fate: 'skipped',
          skipReason: 'untrusted',
          program: 'curl',
        },
        'junk',
        null,
      ],
      skippedSources: [{ user: 'a', layer: 'project', path: '/p', reason: 'not trusted' }],
    });
    expect(inv.policyRevision).toBe(3);
    expect(inv.allowManagedHooksOnly).toBe(true);
    expect(inv.hooks).toEqual([
      expect.objectContaining({
        layer: 'user',
        trust: 'untrusted',
        fate: 'skipped',
        skipReason: 'untrusted',
        program: 'curl',
        plugin: null,
        command: null,
        user: '',
      }),
    ]);
    expect(inv.skippedSources).toHaveLength(1);
    expect(inv.warnings).toEqual([]);
    expect(readInventory(null)).toMatchObject({ hooks: [], hooksEnabled: true, policyRevision: null });
    expect(readInventory({ hooksEnabled: false }).hooksEnabled).toBe(false);
  });
});

describe('readChange', () => {
  it('reads added and removed hooks, ignoring anything else', () => {
    expect(readChange({ added: [{ key: 'a', hash: 'h', layer: 'user' }, 7], removed: 'x' })).toEqual({
      added: [{ key: 'a', hash: 'h', layer: 'user' }],
      removed: [],
    });
    expect(readChange(undefined)).toEqual({ added: [], removed: [] });
  });
});

describe('hookFiltersOf', () => {
  it('takes the API filters from the URL, trimmed, and nothing else', () => {
    const q = new URLSearchParams('program=%20curl%20&layer=user&tab=hooks&cursor=x&hash=&trust=untrusted');
    expect(hookFiltersOf(q)).toEqual({ program: 'curl', layer: 'user', trust: 'untrusted' });
  });
});

describe('suppressedSummary and ackSentence', () => {
  it('names what is suppressed per layer and on how many endpoints', () => {
    expect(suppressedSummary(preview({ user: 2, plugin: 1, total: 3, endpoints: 1 }))).toBe(
      '3 hooks (2 user, 1 plugin) on 1 endpoint',
    );
    expect(suppressedSummary(preview({}))).toBe('');
    expect(ackSentence(preview({ project: 1, total: 1, endpoints: 2 }, 1))).toBe(
      'I have reviewed the impact: this release suppresses 1 hook (1 project) on 2 endpoints and turns hooks off on 1 endpoint.',
    );
    expect(ackSentence(preview({}, 3))).toBe(
      'I have reviewed the impact: this release turns hooks off on 3 endpoints.',
    );
    // Unknown impact is named, not taken for none.
    expect(ackSentence(preview({}, 0, 2))).toBe(
      'I have reviewed the impact: this release has an unknown impact on 2 endpoints without a recent inventory.',
    );
  });
});
