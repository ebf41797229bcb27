// Global search: endpoints, groups, inventoried hooks, policies, policy versions and releases, grouped by kind and
// bounded per kind; the kinds are looked up in parallel.
import { Injectable } from '@nestjs/common';
import type { SearchQuery, SearchResult } from './search.dto';
import { SearchRepository } from './search.repository';
import { searchTerms } from './search-terms';

// At most `limit` of the rows (fetched limit + 1), mapped, and whether there were more.
function bounded<R, T>(rows: R[], limit: number, map: (r: R) => T): { items: T[]; more: boolean } {
  return { items: rows.slice(0, limit).map(map), more: rows.length > limit };
}

@Injectable()
export class SearchService {
  constructor(private readonly repo: SearchRepository) {}

  // Every kind's matches for the query.
  async search(q: SearchQuery): Promise<SearchResult> {
    const t = searchTerms(q.q);
    const n = q.limit + 1;
    const [endpoints, groups, hooks, policies, versions, releases] = await Promise.all([
      this.repo.endpoints(t, n),
      this.repo.groups(t, n),
      this.repo.hooks(t, n),
      this.repo.policies(t, n),
      this.repo.versions(t, n),
      this.repo.releases(t, n),
    ]);
    return {
      endpoints: bounded(endpoints, q.limit, (r) => ({
        id: r.id,
        hostname: r.hostname,
        groupId: r.group_id,
        groupName: r.group_name,
        platform: r.platform,
      })),
      groups: bounded(groups, q.limit, (r) => ({ id: r.id, name: r.name })),
      hooks: bounded(hooks, q.limit, (r) => r),
      policies: bounded(policies, q.limit, (r) => ({ id: r.id, name: r.name, latestVersion: r.latest_version })),
      versions: bounded(versions, q.limit, (r) => ({
        policyId: r.policy_id,
        policyName: r.policy_name,
        number: r.number,
        message: r.message,
        digest: r.digest,
      })),
      releases: bounded(releases, q.limit, (r) => ({
        id: r.id,
        groupId: r.group_id,
        groupName: r.group_name,
        revision: r.revision,
        status: r.status,
        digest: r.digest,
      })),
    };
  }
}
