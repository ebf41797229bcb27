// A table of hook-run records (explorer, endpoint page); each row links to the record's full detail. And the top
// failing or blocking hooks of a filter (the Overview's panels, the explorer's ranking of its filter).
import { useQuery } from '@tanstack/react-query';
import type { QueryParams } from '@hookwarden/admin-client';
import { api, type Schemas } from '../api/client';
import { QueryList } from '../components/list';
import { Badge, Empty, Short, When } from '../components/ui';
import { queryKeys } from '../query-keys';
import { Link } from '../router';

type TopQuery = QueryParams<'GET', '/v1/hook-runs/top'>;
export type TopKind = TopQuery['kind'];

/** The explorer filter that shows the runs a ranking counts. */
const RUNS_OF: Record<TopKind, string> = { failing: 'status=failed,timed_out', blocking: 'decision=deny,block' };

// The hooks that fail or block most under a filter, each linked to its runs.
export function TopHooks({
  kind,
  filter,
  limit,
}: {
  kind: TopKind;
  filter: Omit<TopQuery, 'kind' | 'limit'>;
  limit: number;
}) {
  const q = useQuery({
    queryKey: queryKeys.hookRuns.top({ ...filter, kind, limit }),
    queryFn: () => api.GET('/v1/hook-runs/top', { params: { query: { ...filter, kind, limit } } }),
    refetchInterval: 30_000,
  });
  return (
    <QueryList
      query={q}
      empty="None."
      rowKey={(t) => `${t.hookKey}-${t.hookHash ?? ''}`}
      columns={[
        {
          header: 'Hook',
          cell: (t) => (
            <Link to={`/hook-runs?hookKey=${encodeURIComponent(t.hookKey)}&${RUNS_OF[kind]}`} className="mono">
              {t.hookKey}
            </Link>
          ),
        },
        { header: 'Runs', cell: (t) => t.count },
        { header: 'Endpoints', cell: (t) => t.endpoints },
      ]}
    />
  );
}

export type RunRow = Schemas['HookRunPageDto']['items'][number];

export function RunsTable({ items }: { items: RunRow[] }) {
  if (items.length === 0) return <Empty>No hook run matches.</Empty>;
  return (
    <table className="runs">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Event</th>
          <th scope="col">Tool</th>
          <th scope="col">Hook</th>
          <th scope="col">Status</th>
          <th scope="col">Decision</th>
          <th scope="col">Duration</th>
          <th scope="col">Endpoint</th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => (
          <tr key={r.id} data-run={r.id}>
            <td>
              <Link
                to={`/hook-runs/${r.id}?endpointId=${r.endpointId}`}
                aria-label={`Run ${r.event} ${r.hookKey} at ${r.startedAt}`}
              >
                <When at={r.startedAt} />
              </Link>
            </td>
            <td>{r.event}</td>
            <td>{r.toolName ?? <span className="muted">—</span>}</td>
            <td>
              <Short value={r.hookKey} n={34} tail /> {r.managed ? <span className="chip">managed</span> : null}
            </td>
            <td>
              <Badge value={r.status} />
              {r.skipReason ? <span className="muted"> ({r.skipReason})</span> : null}
            </td>
            <td>
              <Badge value={r.decision} />
            </td>
            <td>{r.durationMs === null ? '—' : `${r.durationMs} ms`}</td>
            <td>
              <Link to={`/endpoints/${r.endpointId}`}>
                <Short value={r.endpointId} n={8} />
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
