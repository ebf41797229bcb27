// Overview: endpoints by state and by applied version per group, hook runs over 24 h / 7 d by event or decision,
// top failing and blocking hooks, open findings, rollouts in progress with their ring progress.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, type Schemas } from '../api/client';
import { type Pick, StackedBars } from '../components/chart';
import { Badge, Card, Empty, ErrorBox, Loading, PageHeader, Short, When } from '../components/ui';
import { Link, navigate, useLocation } from '../router';
import { endpointsPath, explorerPath } from '../links';
import { RingBars } from './rollout-parts';
import { FindingsTable, inventoryPath } from './inventory-parts';
import type { QueryParams } from '@hookwarden/admin-client';
import { FilterBar, type FilterField, filterValues } from '../components/filter-bar';
import { FINDING_FILTERS, FINDING_KINDS } from '../filters';
import { queryKeys } from '../query-keys';

type Attention = Schemas['AttentionDto'];
type Rollout = Attention['rollouts'][number];

/** The overview's fleet counts (every state, every group) from the API. */
function useSummary() {
  return useQuery({
    queryKey: queryKeys.fleet.summary(),
    queryFn: () => api.GET('/v1/fleet/summary', {}),
    refetchInterval: 15_000,
  });
}

/** What needs attention, from the API. */
function useAttention() {
  return useQuery({
    queryKey: queryKeys.fleet.attention(),
    queryFn: () => api.GET('/v1/fleet/attention', {}),
    refetchInterval: 10_000,
  });
}

// One attention list: how many, the first ones by name, and a link to all of them in the endpoints view.
function NamedList({ title, state, list }: { title: string; state: string; list: Attention['failed'] }) {
  if (list.total === 0) return null;
  return (
    <div className="attention-item" data-testid={`attention-${state.replaceAll(' ', '-')}`}>
      <h3>
        <Link to={endpointsPath({ state })}>
          <span className="attention-count">{list.total}</span> {title}
        </Link>
      </h3>
      <ul className="inline-list">
        {list.items.map((e) => (
          <li key={e.id}>
            <Link to={`/endpoints/${e.id}`}>{e.hostname}</Link>
            <span className="muted"> · {e.groupName}</span>
          </li>
        ))}
        {list.total > list.items.length ? (
          <li>
            <Link to={endpointsPath({ state })}>and {list.total - list.items.length} more</Link>
          </li>
        ) : null}
      </ul>
    </div>
  );
}

function AttentionCard() {
  const q = useAttention();
  // The streaming alerts firing now (rules evaluated by the worker; docs/streaming.md).
  const firing = useQuery({
    queryKey: queryKeys.streaming.alerts({ state: 'firing', limit: 20 }),
    queryFn: () => api.GET('/v1/alerts', { params: { query: { state: 'firing', limit: 20 } } }),
    refetchInterval: 10_000,
  });
  const alerts = firing.data?.items ?? [];
  const a = q.data;
  const paused = a?.rollouts.filter((r) => r.status === 'paused') ?? [];
  const nothing =
    a &&
    a.failed.total + a.stale.total + a.neverCheckedIn.total + a.pendingApproval.total + a.findings.total === 0 &&
    paused.length === 0 &&
    alerts.length === 0;
  return (
    <Card title="Needs attention" className="span-2 attention">
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {nothing ? <Empty>Nothing needs attention: every endpoint is applied and reporting.</Empty> : null}
      {a ? (
        <div className="attention-grid">
          {alerts.length > 0 ? (
            <div className="attention-item" data-testid="attention-alerts">
              <h3>
                <Link to="/streaming">
                  <span className="attention-count">{alerts.length}</span> alert{alerts.length === 1 ? '' : 's'} firing
                </Link>
              </h3>
              <ul className="inline-list">
                {alerts.map((x) => (
                  <li key={x.id}>
                    <Badge value={x.kind} tone="bad" /> {x.summary}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <NamedList title="failed to apply" state="failed" list={a.failed} />
          <NamedList title="stale (silent > 24 h)" state="stale" list={a.stale} />
          <NamedList title="never checked in" state="never checked in" list={a.neverCheckedIn} />
          <NamedList title="pending approval" state="pending approval" list={a.pendingApproval} />
          {paused.map((r) => (
            <div key={r.releaseId} className="attention-item">
              <h3>
                <Link to={`/releases/${r.releaseId}`}>
                  Paused: {r.policyName} v{r.policyVersion} → {r.groupName}
                </Link>
              </h3>
              <p>{r.pausedReason ?? 'Paused by an admin.'}</p>
            </div>
          ))}
          {a.findings.total > 0 ? (
            <div className="attention-item">
              <h3>
                <Link to={endpointsPath({ hasFindings: 'true', sort: 'openFindings', order: 'desc' })}>
                  <span className="attention-count">{a.findings.total}</span> open finding
                  {a.findings.total === 1 ? '' : 's'}
                </Link>
              </h3>
              <ul className="inline-list">
                {a.findings.byKind.map((f) => (
                  <li key={f.kind}>
                    <Badge value={f.kind} tone="warn" /> {f.count}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}

function FleetCard() {
  const q = useSummary();
  return (
    <Card title="Endpoints" actions={<Link to="/endpoints">All endpoints</Link>}>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data ? (
        <>
          <ul className="stat-row" aria-label="Endpoints by state">
            {q.data.states
              .filter((s) => s.inFleet || s.count > 0)
              .map((s) => (
                <li key={s.state} className={`stat stat-${s.state.replaceAll(' ', '-')}`}>
                  <Link to={endpointsPath({ state: s.state })} className="stat-link">
                    <span className="stat-value">{s.count}</span>
                    <span className="stat-label">{s.state}</span>
                  </Link>
                </li>
              ))}
          </ul>
          <h3>Applied version by group</h3>
          {q.data.groups.length === 0 ? (
            <Empty>No groups yet.</Empty>
          ) : (
            <div className="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Group</th>
                    <th scope="col">Endpoints</th>
                    <th scope="col">Applied versions</th>
                  </tr>
                </thead>
                <tbody>
                  {q.data.groups.map((g) => (
                    <tr key={g.id}>
                      <td>
                        <Link to={`/groups/${g.id}`}>{g.name}</Link>
                      </td>
                      <td>
                        <Link to={endpointsPath({ groupId: g.id, inFleet: 'true' })}>{g.total}</Link>
                      </td>
                      <td>
                        {g.versions.length === 0 ? <span className="muted">no endpoints</span> : null}
                        <div className="version-split">
                          {[...g.versions]
                            .sort((a, b) => b.count - a.count)
                            .map((v) => (
                              <Link
                                key={v.version ?? 'none'}
                                className="chip"
                                to={endpointsPath({
                                  groupId: g.id,
                                  inFleet: 'true',
                                  appliedVersion: v.version === null ? 'none' : String(v.version),
                                })}
                              >
                                {v.version === null ? 'none' : `v${v.version}`} <strong>{v.count}</strong>
                              </Link>
                            ))}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
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
  // Every bucket of the range, empty ones included (the API lists only buckets with runs); the range starts on a
  // bucket so each bar counts a whole bucket, exactly what its drill-down filter matches.
  const step = range === '24h' ? 3600_000 : 86400_000;
  const count = range === '24h' ? 25 : 8;
  const q = useQuery({
    queryKey: queryKeys.hookRuns.stats({ overview: range }),
    queryFn: async () => {
      const last = Math.floor(Date.now() / step) * step;
      const first = last - (count - 1) * step;
      const stats = await api.GET('/v1/hook-runs/stats', {
        params: { query: { bucket: range === '24h' ? 'hour' : 'day', from: new Date(first).toISOString() } },
      });
      return { first, stats };
    },
    refetchInterval: 30_000,
  });
  const key = by === 'event' ? 'byEvent' : 'byDecision';
  const chart = useMemo(() => {
    const first = q.data?.first ?? 0;
    const slots = Array.from({ length: count }, (_, i) => first + i * step);
    const byStart = new Map(
      (q.data?.stats.buckets ?? []).map((b) => [Math.floor(new Date(b.start).getTime() / step) * step, b] as const),
    );
    const labels = new Set<string>();
    for (const b of byStart.values()) for (const k of Object.keys(b[key])) labels.add(k);
    const raw = [...labels].sort();
    const series = raw.map((label) => ({
      label: label === '' || label === 'null' ? '(none)' : label,
      values: slots.map((t) => byStart.get(t)?.[key][label] ?? 0),
    }));
    const totals = slots.map((t) => byStart.get(t)?.total ?? 0);
    return { slots, times: slots.map((t) => t / 1000), series, raw, totals };
  }, [q.data, key, step, count]);
  const total = chart.totals.reduce((n, x) => n + x, 0);
  // The explorer filters of one bucket (and one series value, when given).
  const bucketPath = (i: number, s: number | null) => {
    const from = chart.slots[i]!;
    const value = s === null ? undefined : chart.raw[s];
    return explorerPath({
      from: new Date(from).toISOString(),
      to: new Date(from + step).toISOString(),
      ...(value !== undefined && value !== '' && value !== 'null' ? { [by]: value } : {}),
    });
  };
  const onPick = (p: Pick) => {
    if (p.kind === 'bar') navigate(bucketPath(p.index, p.series));
    else
      navigate(explorerPath({ from: new Date(p.from * 1000).toISOString(), to: new Date(p.to * 1000).toISOString() }));
  };
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
              <Link to={explorerPath({ from: new Date(chart.slots[0]!).toISOString() })} data-testid="runs-total">
                {total} run{total === 1 ? '' : 's'}
              </Link>{' '}
              · by {by} · per {range === '24h' ? 'hour' : 'day'} (UTC) · click a bar for its runs, drag across bars for
              a time range
            </p>
            <StackedBars times={chart.times} series={chart.series} label={`Hook runs by ${by}`} onPick={onPick} />
            <details className="bucket-table">
              <summary>Counts per {range === '24h' ? 'hour' : 'day'}</summary>
              <div className="table-scroll">
                <table data-testid="bucket-table">
                  <thead>
                    <tr>
                      <th scope="col">From (UTC)</th>
                      <th scope="col">All</th>
                      {chart.series.map((s) => (
                        <th key={s.label} scope="col">
                          {s.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {chart.slots.map((t, i) =>
                      chart.totals[i] ? (
                        <tr key={t}>
                          <td>{new Date(t).toISOString().slice(0, 16).replace('T', ' ')}</td>
                          <td>
                            <Link to={bucketPath(i, null)}>{chart.totals[i]}</Link>
                          </td>
                          {chart.series.map((s, si) => (
                            <td key={s.label}>
                              {s.values[i] && chart.raw[si] !== '' && chart.raw[si] !== 'null' ? (
                                <Link to={bucketPath(i, si)}>{s.values[i]}</Link>
                              ) : (
                                <span>{s.values[i] ?? 0}</span>
                              )}
                            </td>
                          ))}
                        </tr>
                      ) : null,
                    )}
                  </tbody>
                </table>
              </div>
            </details>
          </>
        )
      ) : null}
    </Card>
  );
}

function TopCard({ kind }: { kind: 'failing' | 'blocking' }) {
  const q = useQuery({
    queryKey: queryKeys.hookRuns.top({ overview: kind }),
    queryFn: async () => {
      const from = new Date(Date.now() - 7 * 86400_000).toISOString();
      return { from, ...(await api.GET('/v1/hook-runs/top', { params: { query: { kind, limit: 5, from } } })) };
    },
    refetchInterval: 30_000,
  });
  const filter = kind === 'failing' ? { status: 'failed,timed_out' } : { decision: 'deny,block' };
  return (
    <Card title={kind === 'failing' ? 'Top failing hooks (7 d)' : 'Top blocking hooks (7 d)'}>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && q.data.items.length === 0 ? <Empty>None.</Empty> : null}
      {q.data && q.data.items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Hook</th>
              <th scope="col">Runs</th>
              <th scope="col">Endpoints</th>
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((t) => (
              <tr key={`${t.hookKey}-${t.hookHash ?? ''}`}>
                <td>
                  <Link to={explorerPath({ hookKey: t.hookKey, ...filter })} className="mono">
                    {t.hookKey}
                  </Link>
                </td>
                <td>
                  <Link to={explorerPath({ hookKey: t.hookKey, ...filter, from: q.data.from })}>{t.count}</Link>
                </td>
                <td>{t.endpoints}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
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
  const q = useAttention();
  return (
    <Card title="Rollouts in progress" className="span-2" actions={<Link to="/releases">All releases</Link>}>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && q.data.rollouts.length === 0 ? <Empty>No rollout in progress.</Empty> : null}
      {q.data?.rollouts.map((r) => (
        <RolloutSummary key={r.releaseId} release={r} />
      ))}
    </Card>
  );
}

function RolloutSummary({ release }: { release: Rollout }) {
  const q = useQuery({
    queryKey: queryKeys.releases.rollout(release.releaseId),
    queryFn: () => api.GET('/v1/releases/{id}/rollout', { params: { path: { id: release.releaseId } } }),
    refetchInterval: 2_000,
  });
  return (
    <div className="rollout-summary">
      <div className="rollout-summary-head">
        <Link to={`/releases/${release.releaseId}`}>
          {release.policyName} v{release.policyVersion} → {release.groupName} · revision {release.revision}
        </Link>
        <Badge value={release.status} />
        <span className="muted">
          ring {release.currentRing + 1} of {release.rings.length}
        </span>
        {release.pausedReason ? <span className="muted">· {release.pausedReason}</span> : null}
      </div>
      {q.data ? <RingBars rollout={q.data} compact /> : null}
    </div>
  );
}

export default function Overview() {
  return (
    <>
      <PageHeader
        title="Overview"
        subtitle="What needs attention first, then the fleet, its hook activity and rollouts."
      />
      <div className="grid-2">
        <AttentionCard />
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
