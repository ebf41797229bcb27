// The server's side of a plan: groups, capture settings, policies, their latest versions and group releases.
import type { ApiClient } from '../client/api-client';
import type { AuditSettings, GroupView, PolicyView, ReleaseView, VersionView } from '../client/types';

export interface ServerState {
  groups: GroupView[];
  policies: PolicyView[];
  /** Capture settings by group id (groups the plan needs). */
  capture: Map<string, AuditSettings>;
  /** Releases by group id, newest revision first. */
  releases: Map<string, ReleaseView[]>;
  /** Latest version (without file contents) by policy id, for policies that have one. */
  latest: Map<string, VersionView>;
}

/** Largest version answer with contents: 200 files of 1 MiB in base64 plus the TOML. */
const MAX_VERSION_WITH_CONTENT_BYTES = 320 * 1024 * 1024;

// A version with its file contents (base64), read only when a diff or an export needs them.
export function versionWithContent(client: ApiClient, policyId: string, n: number): Promise<VersionView> {
  return client.json('GET', '/v1/policies/{id}/versions/{n}', {
    path: { id: policyId, n },
    query: { withContent: 'true' },
    maxBytes: MAX_VERSION_WITH_CONTENT_BYTES,
    timeoutMs: 300_000,
  });
}

export const LIVE_STATUSES = ['rolling', 'paused', 'completed'];

// The release a group's endpoints enforce (the newest live one that is not a shadow release), if any.
export function currentRelease(releases: ReleaseView[] | undefined): ReleaseView | undefined {
  return releases?.find((r) => r.strategy !== 'shadow' && LIVE_STATUSES.includes(r.status));
}

// The group's live shadow release (at most one), if any.
export function liveShadowRelease(releases: ReleaseView[] | undefined): ReleaseView | undefined {
  return releases?.find((r) => r.strategy === 'shadow' && LIVE_STATUSES.includes(r.status));
}

// Runs `fn` over items with at most `n` in flight.
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

// Fetches what a plan compares against. `groupNames` limits capture/release reads to the groups that matter.
export async function fetchServerState(client: ApiClient, groupNames: Set<string> | 'all'): Promise<ServerState> {
  const [groups, policies] = await Promise.all([client.listAll('/v1/groups', {}), client.listAll('/v1/policies', {})]);
  const state: ServerState = { groups, policies, capture: new Map(), releases: new Map(), latest: new Map() };
  const wanted = groups.filter((g) => groupNames === 'all' || groupNames.has(g.name));
  await pool(wanted, 4, async (g) => {
    const [settings, releases] = await Promise.all([
      client.json('GET', '/v1/groups/{id}/audit-settings', { path: { id: g.id } }),
      client.json('GET', '/v1/groups/{groupId}/releases', { path: { groupId: g.id } }),
    ]);
    state.capture.set(g.id, settings);
    state.releases.set(g.id, releases.items);
  });
  await pool(
    policies.filter((p) => p.latestVersion > 0),
    4,
    async (p) => {
      state.latest.set(
        p.id,
        await client.json('GET', '/v1/policies/{id}/versions/{n}', { path: { id: p.id, n: p.latestVersion } }),
      );
    },
  );
  return state;
}
