// A table of hook-run records (explorer, endpoint page); each row links to the record's full detail.
import type { Schemas } from '../api/client';
import { Badge, Empty, Short, When } from '../components/ui';
import { Link } from '../router';

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
              <Link to={`/hook-runs/${r.id}?endpointId=${r.endpointId}`}>
                <When at={r.startedAt} />
                <span className="sr-only">
                  {' '}
                  · run of {r.event} {r.hookKey}
                </span>
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
