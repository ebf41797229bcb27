// Endpoints: every endpoint of the fleet in one table — sorted and filtered by the API (keyset pages), the URL holds
// sort and filters (shareable, saved views), "last seen" ticks live; admins move or revoke the selected endpoints
// after a confirmation (one audit entry per endpoint).
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, nextCursorOf, type Schemas } from '../api/client';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';
import { SavedViews } from '../components/saved-views';
import { ago, Badge, Card, ConfirmButton, Empty, ErrorBox, Loading, MoreButton, PageHeader } from '../components/ui';
import { FLEET_STATES } from '../domain';
import { FLEET_FILTERS, type FleetFilter } from '../filters';
import { endpointsPath } from '../links';
import { Link, navigate, useLocation } from '../router';
import { useSession } from '../session';

type Row = Schemas['FleetPageDto']['items'][number];
type Query = Partial<Record<FleetFilter, string>>;

/** The sortable columns, in table order. */
const COLUMNS = [
  { sort: 'hostname', label: 'Hostname' },
  { sort: 'group', label: 'Group' },
  { sort: 'platform', label: 'Platform' },
  { sort: 'agentVersion', label: 'Agent' },
  { sort: 'appliedRevision', label: 'Applied rev.' },
  { sort: 'state', label: 'State' },
  { sort: 'lastSeenAt', label: 'Last seen' },
  { sort: 'openFindings', label: 'Findings' },
] as const;

const PLATFORMS = ['linux', 'darwin', 'windows'];

// The list's parameters in the URL.
function queryOf(params: URLSearchParams): Query {
  const out: Query = {};
  for (const k of FLEET_FILTERS) {
    const v = params.get(k);
    if (v) out[k] = v;
  }
  return out;
}

// The current time, ticking every second (for live "last seen").
function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

function LastSeen({ at, now }: { at: string | null; now: number }) {
  if (!at) return <span className="muted">never</span>;
  return (
    <time dateTime={at} title={at}>
      {ago(at, now)}
    </time>
  );
}

export default function Endpoints() {
  const { query } = useLocation();
  const { session } = useSession();
  const admin = session?.role === 'admin';
  const q = queryOf(query);
  const key = JSON.stringify(q);
  const [draft, setDraft] = useState<Query>(q);
  useEffect(() => setDraft(JSON.parse(key) as Query), [key]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [target, setTarget] = useState('');
  const client = useQueryClient();
  const now = useNow();
  const groups = useQuery(groupsQuery);
  const list = useInfiniteQuery({
    queryKey: queryKeys.fleet.endpoints({ key }),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/fleet/endpoints', {
        params: {
          query: { ...(q as Record<string, string>), limit: 100, ...(pageParam ? { cursor: pageParam } : {}) },
        },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
    refetchInterval: 30_000,
  });
  const rows: Row[] = list.data?.pages.flatMap((p) => p.items) ?? [];
  const total = list.data?.pages[0]?.total;
  const sort = q.sort ?? 'hostname';
  const order = q.order ?? 'asc';
  const go = (next: Query) => {
    setSelected(new Set());
    navigate(endpointsPath(next), true);
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ ...draft, q: draft.q?.trim() || undefined });
  };
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const allShown = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const ids = [...selected];
  const done = async () => {
    setSelected(new Set());
    await Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.fleet.all() }),
      client.invalidateQueries({ queryKey: queryKeys.endpoints.all() }),
    ]);
  };
  const set = (k: FleetFilter, v: string) => setDraft((d) => ({ ...d, [k]: v || undefined }));
  const groupName = groups.data?.items.find((g) => g.id === target)?.name ?? '';
  return (
    <>
      <PageHeader title="Endpoints" subtitle="Every endpoint of the fleet: sort by any column, filter, act in bulk." />
      <SavedViews kind="endpoints" path="/endpoints" query={q} />
      <Card>
        <form className="filters" onSubmit={apply} aria-label="Filters">
          <div className="filter">
            <label htmlFor="ef-q">Hostname or id</label>
            <input id="ef-q" value={draft.q ?? ''} onChange={(e) => set('q', e.target.value)} />
          </div>
          <div className="filter">
            <label htmlFor="ef-group">Group</label>
            <select id="ef-group" value={draft.groupId ?? ''} onChange={(e) => set('groupId', e.target.value)}>
              <option value="">any</option>
              {groups.data?.items.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </div>
          <div className="filter">
            <label htmlFor="ef-state">State</label>
            <select id="ef-state" value={draft.state ?? ''} onChange={(e) => set('state', e.target.value)}>
              <option value="">any</option>
              {FLEET_STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div className="filter">
            <label htmlFor="ef-platform">Platform</label>
            <select id="ef-platform" value={draft.platform ?? ''} onChange={(e) => set('platform', e.target.value)}>
              <option value="">any</option>
              {PLATFORMS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
          <div className="filter">
            <label htmlFor="ef-agent">Agent version</label>
            <input
              id="ef-agent"
              value={draft.agentVersion ?? ''}
              placeholder="e.g. 1.2.0"
              onChange={(e) => set('agentVersion', e.target.value)}
            />
          </div>
          <div className="filter">
            <label htmlFor="ef-findings">Open findings</label>
            <select
              id="ef-findings"
              value={draft.hasFindings ?? ''}
              onChange={(e) => set('hasFindings', e.target.value)}
            >
              <option value="">any</option>
              <option value="true">with open findings</option>
              <option value="false">without</option>
            </select>
          </div>
          <div className="filter-actions">
            <button type="submit" className="btn-primary">
              Apply filters
            </button>
            <button type="button" className="btn-ghost" onClick={() => go({})}>
              Clear
            </button>
          </div>
        </form>
      </Card>
      <Card
        title={total === undefined ? 'Endpoints' : `${total} endpoint${total === 1 ? '' : 's'}`}
        actions={
          admin ? (
            <div className="bulk" aria-label="Bulk actions">
              <span data-testid="selected-count">{selected.size} selected</span>
              <label htmlFor="bulk-group" className="sr-only">
                Move to group
              </label>
              <select id="bulk-group" value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="">Move to group…</option>
                {groups.data?.items.map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
              </select>
              <ConfirmButton
                label="Move"
                title={`Move ${ids.length} endpoint${ids.length === 1 ? '' : 's'} to ${groupName}?`}
                body={
                  <p>
                    Each endpoint&apos;s agent is told at once and applies the bundle of {groupName}. Every move is
                    audited.
                  </p>
                }
                disabled={ids.length === 0 || !target}
                onConfirm={async () => {
                  await api.POST('/v1/fleet/endpoints/move', { body: { ids, groupId: target } });
                  await done();
                }}
              />
              <ConfirmButton
                label="Revoke"
                danger
                title={`Revoke ${ids.length} endpoint${ids.length === 1 ? '' : 's'}?`}
                body={
                  <p>
                    Their credentials stop working at once on every instance; only a re-admission brings one back. Every
                    revocation is audited.
                  </p>
                }
                disabled={ids.length === 0}
                onConfirm={async () => {
                  await api.POST('/v1/fleet/endpoints/revoke', { body: { ids } });
                  await done();
                }}
              />
            </div>
          ) : null
        }
      >
        {list.isPending ? <Loading /> : null}
        <ErrorBox error={list.error} />
        {list.data && rows.length === 0 ? <Empty>No endpoint matches these filters.</Empty> : null}
        {rows.length > 0 ? (
          <div className="table-scroll">
            <table data-testid="fleet-endpoints">
              <thead>
                <tr>
                  {admin ? (
                    <th scope="col">
                      <input
                        type="checkbox"
                        aria-label="Select every endpoint shown"
                        checked={allShown}
                        onChange={() => setSelected(allShown ? new Set() : new Set(rows.map((r) => r.id)))}
                      />
                    </th>
                  ) : null}
                  {COLUMNS.map((c) => {
                    const active = sort === c.sort;
                    const next = active && order === 'asc' ? 'desc' : 'asc';
                    return (
                      <th
                        key={c.sort}
                        scope="col"
                        aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined}
                      >
                        <button
                          type="button"
                          className="sort-button"
                          onClick={() => go({ ...q, sort: c.sort, order: next })}
                        >
                          {c.label}
                          <span aria-hidden="true">{active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    {admin ? (
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select ${r.hostname}`}
                          checked={selected.has(r.id)}
                          onChange={() => toggle(r.id)}
                        />
                      </td>
                    ) : null}
                    <td>
                      <Link to={`/endpoints/${r.id}`}>{r.hostname}</Link>
                    </td>
                    <td>
                      <Link to={endpointsPath({ ...q, groupId: r.groupId })}>{r.groupName}</Link>
                    </td>
                    <td>{r.platform}</td>
                    <td>{r.agentVersion}</td>
                    <td>{r.appliedRevision ?? <span className="muted">—</span>}</td>
                    <td>
                      <Badge value={r.state} />
                    </td>
                    <td>
                      <LastSeen at={r.lastSeenAt} now={now} />
                    </td>
                    <td>
                      {r.openFindings > 0 ? (
                        <Link to={`/endpoints/${r.id}`} aria-label={`${r.openFindings} open findings of ${r.hostname}`}>
                          {r.openFindings}
                        </Link>
                      ) : (
                        <span className="muted">0</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <MoreButton
          hasMore={list.hasNextPage}
          loading={list.isFetchingNextPage}
          onClick={() => void list.fetchNextPage()}
        />
      </Card>
    </>
  );
}
