// Overview: endpoints by state and by applied version per group, hook runs over 24 h / 7 d by event or decision,
// top failing and blocking hooks, open findings, rollouts in progress with their ring progress.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, nextCursorOf, type Schemas } from '../api/client';
import { StackedBars } from '../components/chart';
import { Badge, Card, Empty, ErrorBox, Loading, PageHeader, Short, When } from '../components/ui';
import { Link, useLocation } from '../router';
import { FLEET_STATES, type FleetState, fleetState, inFleet, OUTSIDE_FLEET } from '../domain';
import { RingBars } from './rollout-parts';
import { FindingsTable, inventoryPath } from './inventory-parts';
import type { QueryParams } from '@hookwarden/admin-client';
import { FilterBar, type FilterField, filterValues } from '../components/filter-bar';
import { FINDING_FILTERS, FINDING_KINDS } from '../filters';
import { type TopKind, TopHooks } from './hook-runs-table';
import { queryKeys } from '../query-keys';

type Endpoint = Schemas['EndpointPageDto']['items'][number];
type Release = Schemas['ReleaseListDto']['items'][number];

/** Endpoints read for the overview's counts (pages of 500). */
const ENDPOINT_LIMIT = 5000;
// Every endpoint up to ENDPOINT_LIMIT (keyset pages); `truncated` when there are more.
async function allEndpoints(): Promise<{ items: Endpoint[]; truncated: boolean }> {
  const items: Endpoint[] = [];
  let cursor: string | undefined;
  while (items.length < ENDPOINT_LIMIT) {
    const page = await api.GET('/v1/endpoints', { params: { query: { limit: 200, cursor } } });
    items.push(...page.items);
    const next = nextCursorOf(page);
    if (!next) return { items, truncated: false };
    cursor = next;
  }
  return { items, truncated: true };
}

// Releases still rolling or paused, across groups (the first 200 groups).
async function activeRollouts(): Promise<Release[]> {
  const groups = await api.GET('/v1/groups', { params: { query: { limit: 200 } } });
  const lists = await Promise.all(
    groups.items.map((g) => api.GET('/v1/groups/{groupId}/releases', { params: { path: { groupId: g.id } } })),
  );
  return lists.flatMap((l) => l.items).filter((r) => r.status === 'rolling' || r.status === 'paused');
}

function FleetCard() {
  const q = useQuery({
    queryKey: queryKeys.endpoints.list({ overview: 'all' }),
    queryFn: allEndpoints,
    refetchInterval: 15_000,
  });
  const summary = useMemo(() => {
    const byState = new Map<FleetState, number>();
    const byGroup = new Map<string, { name: string; id: string; versions: Map<string, number>; total: number }>();
    const now = Date.now();
    for (const e of q.data?.items ?? []) {
      const s = fleetState(e, now);
      byState.set(s, (byState.get(s) ?? 0) + 1);
      if (!inFleet(e)) continue;
      const g = byGroup.get(e.groupId) ?? { name: e.groupName, id: e.groupId, versions: new Map(), total: 0 };
      const v = e.appliedPolicyVersion === null ? 'none' : `v${e.appliedPolicyVersion}`;
      g.versions.set(v, (g.versions.get(v) ?? 0) + 1);
      g.total++;
      byGroup.set(e.groupId, g);
    }
    return { byState, groups: [...byGroup.values()].sort((a, b) => a.name.localeCompare(b.name)) };
  }, [q.data]);
  return (
    <Card title="Endpoints" actions={<Link to="/groups">All groups</Link>}>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data ? (
        <>
          <ul className="stat-row" aria-label="Endpoints by state">
            {FLEET_STATES.filter((s) => !OUTSIDE_FLEET.includes(s) || summary.byState.get(s)).map((s) => (
              <li key={s} className={`stat stat-${s.replaceAll(' ', '-')}`}>
                <span className="stat-value">{summary.byState.get(s) ?? 0}</span>
                <span className="stat-label">{s}</span>
              </li>
            ))}
          </ul>
          {q.data.truncated ? <p className="hint">Counts cover the first {ENDPOINT_LIMIT} endpoints.</p> : null}
          <h3>Applied version by group</h3>
          {summary.groups.length === 0 ? (
            <Empty>No enrolled endpoints yet.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Endpoints</th>
                  <th scope="col">Applied versions</th>
                </tr>
              </thead>
              <tbody>
                {summary.groups.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <Link to={`/groups/${g.id}`}>{g.name}</Link>
                    </td>
                    <td>{g.total}</td>
                    <td>
                      <div className="version-split">
                        {[...g.versions.entries()]
                          .sort((a, b) => b[1] - a[1])
                          .map(([v, n]) => (
                            <span key={v} className="chip">
                              {v} <strong>{n}</strong>
                            </span>
                          ))}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </Card>
  );
}

type Range = '24h' | '7d';
type By = 'event' | 'decision';

function RunsChartCard() {
  const [range, setRange] = useState<Range>('24h');
  const [by, setBy] = useState<By>('event');
  const q = useQuery({
    queryKey: queryKeys.hookRuns.stats({ range }),
    queryFn: () => {
      const from = new Date(Date.now() - (range === '24h' ? 24 : 24 * 7) * 3600_000).toISOString();
      return api.GET('/v1/hook-runs/stats', { params: { query: { bucket: range === '24h' ? 'hour' : 'day', from } } });
    },
    refetchInterval: 30_000,
  });
  const chart = useMemo(() => {
    const key = by === 'event' ? 'byEvent' : 'byDecision';
    // Every bucket of the range, empty ones included (the API lists only buckets with runs).
    const step = range === '24h' ? 3600_000 : 86400_000;
    const count = range === '24h' ? 25 : 8;
    const last = Math.floor(Date.now() / step) * step;
    const slots = Array.from({ length: count }, (_, i) => last - (count - 1 - i) * step);
    const byStart = new Map(
      (q.data?.buckets ?? []).map((b) => [Math.floor(new Date(b.start).getTime() / step) * step, b] as const),
    );
    const labels = new Set<string>();
    for (const b of byStart.values()) for (const k of Object.keys(b[key])) labels.add(k);
    const series = [...labels].sort().map((label) => ({
      label: label === '' || label === 'null' ? '(none)' : label,
      values: slots.map((t) => byStart.get(t)?.[key][label] ?? 0),
    }));
    return { times: slots.map((t) => t / 1000), series };
  }, [q.data, by, range]);
  const total = (q.data?.buckets ?? []).reduce((n, b) => n + b.total, 0);
  return (
    <Card
      title="Hook runs"
      className="span-2"
      actions={
        <>
          <div className="segmented" role="group" aria-label="Range">
            {(['24h', '7d'] as const).map((r) => (
              <button key={r} type="button" aria-pressed={range === r} onClick={() => setRange(r)}>
                {r === '24h' ? 'Last 24 h' : 'Last 7 days'}
              </button>
            ))}
          </div>
          <div className="segmented" role="group" aria-label="Split by">
            {(['event', 'decision'] as const).map((b) => (
              <button key={b} type="button" aria-pressed={by === b} onClick={() => setBy(b)}>
                By {b}
              </button>
            ))}
          </div>
        </>
      }
    >
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data ? (
        total === 0 ? (
          <Empty>No hook runs in this period.</Empty>
        ) : (
          <>
            <p className="hint">
              {total} run{total === 1 ? '' : 's'} · by {by} · per {range === '24h' ? 'hour' : 'day'} (UTC)
            </p>
            <StackedBars times={chart.times} series={chart.series} label={`Hook runs by ${by}`} />
          </>
        )
      ) : null}
    </Card>
  );
}

function TopCard({ kind }: { kind: TopKind }) {
  // Seven days back from the first render (the key stays the same across refetches).
  const [from] = useState(() => new Date(Date.now() - 7 * 86400_000).toISOString());
  return (
    <Card title={kind === 'failing' ? 'Top failing hooks (7 d)' : 'Top blocking hooks (7 d)'}>
      <TopHooks kind={kind} filter={{ from }} limit={5} />
    </Card>
  );
}

/** The record findings' filter fields (FINDING_FILTERS), in the Overview's URL. */
const FINDING_FIELDS = [
  { key: 'kind', label: 'Kind', kind: FINDING_FILTERS.kind, options: FINDING_KINDS },
  { key: 'groupId', label: 'In group', kind: FINDING_FILTERS.groupId },
  { key: 'endpointId', label: 'Endpoint', kind: FINDING_FILTERS.endpointId, placeholder: 'endpoint id' },
  {
    key: 'includeResolved',
    label: 'Resolved',
    kind: FINDING_FILTERS.includeResolved,
    yesNo: ['included', 'left out'],
  },
] as const satisfies ReadonlyArray<FilterField & { key: keyof typeof FINDING_FILTERS }>;

function FindingsCard() {
  const { query } = useLocation();
  const filter = filterValues(FINDING_FIELDS, query) as QueryParams<'GET', '/v1/findings'>;
  const q = useQuery({
    queryKey: queryKeys.findings.list({ ...filter, limit: 10 }),
    queryFn: () => api.GET('/v1/findings', { params: { query: { ...filter, limit: 10 } } }),
    refetchInterval: 30_000,
  });
  // Known-bad hooks on endpoints and managed hooks missing where the layer is applied (the inventory's findings).
  const inv = useQuery({
    queryKey: queryKeys.inventory.findings({}),
    queryFn: () => api.GET('/v1/inventory/findings', {}),
    refetchInterval: 30_000,
  });
  const invItems = inv.data?.items ?? [];
  return (
    <Card title="Open findings">
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      <ErrorBox error={inv.error} />
      {q.data && q.data.items.length === 0 && inv.data && invItems.length === 0 ? (
        <Empty>
          No open findings: every endpoint&apos;s record chain is whole, no enrollment awaits a decision and no
          inventoried hook is flagged.
        </Empty>
      ) : null}
      {invItems.length > 0 ? (
        <>
          <FindingsTable items={invItems.slice(0, 10)} />
          <p className="small">
            <Link to={inventoryPath('findings')}>
              {invItems.length > 10 ? `All ${invItems.length} inventory findings` : 'Inventory findings'}
            </Link>
          </p>
        </>
      ) : null}
      <h3 className="card-sub">Endpoint record findings</h3>
      <FilterBar fields={FINDING_FIELDS} path="/" label="Finding filters" />
      {q.data && q.data.items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Endpoint</th>
              <th scope="col">What</th>
              <th scope="col">Detected</th>
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((f) => (
              <tr key={f.id}>
                <td>
                  <Badge value={f.kind} tone="warn" />
                </td>
                <td>
                  <Link to={`/endpoints/${f.endpointId}`}>
                    <Short value={f.endpointId} n={8} />
                  </Link>
                </td>
                <td>
                  {f.kind === 'duplicate_machine_id' ? (
                    <DuplicateFinding details={f.details} resolved={f.resolvedAt !== null} />
                  ) : f.fromSeq === null ? (
                    '—'
                  ) : (
                    `seq ${f.fromSeq}–${f.toSeq ?? ''}`
                  )}
                </td>
                <td>
                  <When at={f.detectedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Card>
  );
}

type Finding = Schemas['FindingPageDto']['items'][number];
type DuplicateDetails = Extract<Finding, { kind: 'duplicate_machine_id' }>['details'];

// A duplicate machine id finding: which endpoint it duplicates, and where the admin decides.
function DuplicateFinding({ details: d, resolved }: { details: DuplicateDetails; resolved: boolean }) {
  return (
    <>
      {d.hostname ?? 'An enrollment'} duplicates{' '}
      {d.duplicateOf ? (
        <Link to={`/endpoints/${d.duplicateOf}`}>
          <Short value={d.duplicateOf} n={8} />
        </Link>
      ) : (
        'another endpoint'
      )}
      {resolved ? null : (
        <>
          {' '}
          · <Link to="/groups">Pending approval</Link>
        </>
      )}
    </>
  );
}

function RolloutsCard() {
  const q = useQuery({ queryKey: queryKeys.releases.active(), queryFn: activeRollouts, refetchInterval: 5_000 });
  return (
    <Card title="Rollouts in progress" className="span-2" actions={<Link to="/releases">All releases</Link>}>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && q.data.length === 0 ? <Empty>No rollout in progress.</Empty> : null}
      {q.data?.map((r) => (
        <RolloutSummary key={r.id} release={r} />
      ))}
    </Card>
  );
}

function RolloutSummary({ release }: { release: Release }) {
  const q = useQuery({
    queryKey: queryKeys.releases.rollout(release.id),
    queryFn: () => api.GET('/v1/releases/{id}/rollout', { params: { path: { id: release.id } } }),
    refetchInterval: 2_000,
  });
  return (
    <div className="rollout-summary">
      <div className="rollout-summary-head">
        <Link to={`/releases/${release.id}`}>
          Revision {release.revision} · policy v{release.policyVersion}
        </Link>
        <Badge value={release.status} />
        <span className="muted">
          ring {release.currentRing + 1} of {release.rings.length}
        </span>
      </div>
      {q.data ? <RingBars rollout={q.data} compact /> : null}
    </div>
  );
}

export default function Overview() {
  return (
    <>
      <PageHeader title="Overview" subtitle="The fleet, its hook activity and what is rolling out." />
      <div className="grid-2">
        <FleetCard />
        <div className="stack">
          <FindingsCard />
        </div>
        <RunsChartCard />
        <TopCard kind="failing" />
        <TopCard kind="blocking" />
        <RolloutsCard />
      </div>
    </>
  );
}
