// Per-ring progress of a rollout: assigned, applied, failed and stale endpoints of the release's revision.
import type { Schemas } from '../api/client';
import { ringCounts } from '../domain';

type Rollout = Schemas['RolloutDto'];

export function RingBars({ rollout, compact }: { rollout: Rollout; compact?: boolean }) {
  return (
    <table className={compact ? 'rings compact' : 'rings'}>
      <thead>
        <tr>
          <th scope="col">Ring</th>
          <th scope="col">Share</th>
          <th scope="col">Progress</th>
          <th scope="col">Assigned</th>
          <th scope="col">Applied</th>
          <th scope="col">Failed</th>
          <th scope="col">Stale</th>
          {compact ? null : <th scope="col">On other revisions</th>}
        </tr>
      </thead>
      <tbody>
        {rollout.rings.map((ring) => {
          const c = ringCounts(rollout, ring);
          const total = Math.max(1, c.assigned);
          return (
            <tr key={ring.ring} data-ring={ring.ring} className={ring.active ? 'ring-active' : 'ring-waiting'}>
              <th scope="row">
                {ring.ring + 1} {ring.active ? <span className="badge badge-info">open</span> : null}
              </th>
              <td>{ring.percent}%</td>
              <td className="progress-cell">
                <div
                  className="progress"
                  role="progressbar"
                  aria-label={`Ring ${ring.ring + 1} applied`}
                  aria-valuemin={0}
                  aria-valuemax={c.assigned}
                  aria-valuenow={c.applied}
                >
                  <progress className="bar-applied" max={total} value={c.applied} />
                  {c.failed > 0 ? <progress className="bar-failed" max={total} value={c.failed} /> : null}
                </div>
              </td>
              <td data-col="assigned">{c.assigned}</td>
              <td data-col="applied">{c.applied}</td>
              <td data-col="failed" className={c.failed > 0 ? 'text-bad' : undefined}>
                {c.failed}
              </td>
              <td data-col="stale">{c.stale}</td>
              {compact ? null : <td>{c.others}</td>}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
