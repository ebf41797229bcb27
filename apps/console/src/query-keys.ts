// Every query's key, named once: pages read with `queryKeys.x(...)` and invalidate after a write with the same
// factory (a resource's root key invalidates all its variants), never with a hand-written string.

/** Serialises a filter object into a stable key part (key order and empty values do not matter). */
function filterKey(filter: object | undefined): string {
  if (!filter) return '';
  if (typeof filter !== 'object') return String(filter);
  const entries = Object.entries(filter).filter(([, v]) => v !== undefined && v !== null && v !== '');
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

export const queryKeys = {
  authConfig: () => ['auth-config'] as const,
  groups: {
    all: () => ['groups'] as const,
    list: (filter?: object) => ['groups', 'list', filterKey(filter)] as const,
    one: (id: string) => ['groups', 'one', id] as const,
    secrets: (groupId: string) => ['groups', 'secrets', groupId] as const,
    releases: (groupId: string) => ['groups', 'releases', groupId] as const,
    releasePreview: (groupId: string, versionId: string | null) =>
      ['groups', 'release-preview', groupId, versionId ?? ''] as const,
  },
  endpoints: {
    all: () => ['endpoints'] as const,
    list: (filter?: object) => ['endpoints', 'list', filterKey(filter)] as const,
    counts: () => ['endpoints', 'counts'] as const,
    pending: () => ['endpoints', 'pending'] as const,
    one: (id: string) => ['endpoints', 'one', id] as const,
    inventory: (id: string) => ['endpoints', 'inventory', id] as const,
  },
  policies: {
    all: () => ['policies'] as const,
    list: (filter?: object) => ['policies', 'list', filterKey(filter)] as const,
    one: (id: string) => ['policies', 'one', id] as const,
    versions: (policyId: string | null) => ['policies', 'versions', policyId ?? ''] as const,
    version: (policyId: string, n: number | string | null) =>
      ['policies', 'version', policyId, String(n ?? '')] as const,
    diff: (policyId: string, a: number | string, b: number | string) =>
      ['policies', 'diff', policyId, String(a), String(b)] as const,
  },
  releases: {
    all: () => ['releases'] as const,
    active: () => ['releases', 'active'] as const,
    rollout: (id: string) => ['releases', 'rollout', id] as const,
    shadowReport: (id: string) => ['releases', 'shadow-report', id] as const,
  },
  hookRuns: {
    all: () => ['hook-runs'] as const,
    list: (filter?: object) => ['hook-runs', 'list', filterKey(filter)] as const,
    one: (id: string, endpointId: string | undefined) => ['hook-runs', 'one', id, endpointId ?? ''] as const,
    stats: (filter?: object) => ['hook-runs', 'stats', filterKey(filter)] as const,
    top: (filter?: object) => ['hook-runs', 'top', filterKey(filter)] as const,
  },
  findings: {
    all: () => ['findings'] as const,
    list: (filter?: object) => ['findings', 'list', filterKey(filter)] as const,
  },
  inventory: {
    all: () => ['inventory'] as const,
    hooks: (filter?: object) => ['inventory', 'hooks', filterKey(filter)] as const,
    plugins: (filter?: object) => ['inventory', 'plugins', filterKey(filter)] as const,
    changes: (filter?: object) => ['inventory', 'changes', filterKey(filter)] as const,
    findings: (filter?: object) => ['inventory', 'findings', filterKey(filter)] as const,
    denied: () => ['inventory', 'denied'] as const,
  },
  auditLog: {
    all: () => ['audit-log'] as const,
    list: (filter?: object) => ['audit-log', 'list', filterKey(filter)] as const,
    signingKeys: () => ['audit-log', 'signing-keys'] as const,
  },
  me: {
    tokens: () => ['me', 'tokens'] as const,
  },
  streaming: {
    all: () => ['streaming'] as const,
    destinations: () => ['streaming', 'destinations'] as const,
    alerts: (filter?: object) => ['streaming', 'alerts', filterKey(filter)] as const,
  },
  fleet: {
    all: () => ['fleet'] as const,
    endpoints: (filter?: object) => ['fleet', 'endpoints', filterKey(filter)] as const,
    summary: () => ['fleet', 'summary'] as const,
    attention: () => ['fleet', 'attention'] as const,
  },
  search: (q: string) => ['search', q] as const,
  savedViews: {
    all: () => ['saved-views'] as const,
    list: (kind: string) => ['saved-views', kind] as const,
  },
} as const;

/** A query key made by the factory. */
export type QueryKey = readonly string[];
