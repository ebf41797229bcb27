// A shadow release on its release page (issue 27): the shadow report (GET /v1/releases/:id/shadow-report) — totals,
// by hook, by endpoint and by tool command, sample events — each number drilling down to the hook-run explorer
// filtered by the release's shadow runs, and (admins) promote to a staged release, with the impact preview and its
// acknowledgement as for any release.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError, type Schemas } from '../api/client';
import { type Column, DataTable, QueryState } from '../components/list';
import { Card, ConfirmButton, Empty, ErrorBox, Loading, Short, When } from '../components/ui';
import { explorerPath } from '../links';
import { queryKeys } from '../query-keys';
import { Link } from '../router';
import { PreviewPanel } from './release-preview';

type Report = Schemas['ShadowReportDto'];
type Release = Schemas['ReleaseViewDto'];
type Counts = Report['totals'];

/** The report's categories: their label and what they count. */
const CATEGORIES: ReadonlyArray<{ key: keyof Counts; label: string; what: string }> = [
  {
    key: 'wouldNewlyDeny',
    label: 'Would newly deny',
    what: 'a shadow hook would deny or block where no enforced hook did',
  },
  {
    key: 'wouldStopDenying',
    label: 'Would stop denying',
    what: 'an enforced managed hook denied and no shadow hook would',
  },
  { key: 'rewrites', label: 'Rewrites', what: 'shadow runs that would rewrite the tool input' },
  { key: 'errors', label: 'Errors', what: 'shadow runs that crashed, gave invalid output or could not start' },
  { key: 'timeouts', label: 'Timeouts', what: 'shadow runs that timed out or were killed at the shadow budget' },
];

// The count columns of a breakdown (after its own columns).
function countColumns<T extends Counts>(): Array<Column<T>> {
  return CATEGORIES.map((c) => ({
    header: c.label,
    cell: (row: T) => row[c.key],
    className: 'num',
  }));
}

// One breakdown of the report (nothing when it has no row): its own columns, then the five counts.
function Breakdown<T extends Counts>(props: {
  title: string;
  testId: string;
  rows: T[];
  rowKey: (row: T) => string;
  columns: Array<Column<T>>;
}) {
  if (props.rows.length === 0) return null;
  return (
    <Card title={props.title} className="span-2">
      <DataTable
        testId={props.testId}
        rows={props.rows}
        rowKey={props.rowKey}
        columns={[...props.columns, ...countColumns<T>()]}
      />
    </Card>
  );
}

export function ShadowReport({ release }: { release: Release }) {
  const q = useQuery({
    queryKey: queryKeys.releases.shadowReport(release.id),
    queryFn: () => api.GET('/v1/releases/{id}/shadow-report', { params: { path: { id: release.id } } }),
    refetchInterval: 5_000,
  });
  const runs = (q: Record<string, string | undefined> = {}) => explorerPath({ shadowReleaseId: release.id, ...q });
  return (
    <QueryState query={q} what="shadow report">
      {(r) => (
        <>
          <Card title="Shadow report" className="span-2">
            <p className="hint">
              Over the {r.events} event{r.events === 1 ? '' : 's'} its shadow layer ran on ({r.shadowRuns} shadow run
              {r.shadowRuns === 1 ? '' : 's'}), compared with what the enforced hooks decided.{' '}
              <Link to={runs()}>All its shadow runs</Link>
            </p>
            <table className="compact" data-testid="shadow-totals">
              <thead>
                <tr>
                  {CATEGORIES.map((c) => (
                    <th key={c.key} scope="col" title={c.what}>
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  {CATEGORIES.map((c) => (
                    <td key={c.key} data-category={c.key} className="num">
                      {r.totals[c.key]}
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
            <ul className="hint">
              {CATEGORIES.map((c) => (
                <li key={c.key}>
                  <strong>{c.label}</strong>: {c.what}.
                </li>
              ))}
            </ul>
            {r.events === 0 ? (
              <Empty>No event yet: its shadow layer has not run, or the runs are not uploaded yet.</Empty>
            ) : null}
          </Card>
          <Breakdown
            title="By hook (shadow runs)"
            testId="shadow-by-hook"
            rows={r.byHook}
            rowKey={(x) => x.hookKey}
            columns={[{ header: 'Hook', cell: (x) => <Link to={runs({ hookKey: x.hookKey })}>{x.hookKey}</Link> }]}
          />
          <Breakdown
            title="By endpoint (events)"
            testId="shadow-by-endpoint"
            rows={r.byEndpoint}
            rowKey={(x) => x.endpointId}
            columns={[
              {
                header: 'Endpoint',
                cell: (x) => (
                  <>
                    <Link to={`/endpoints/${x.endpointId}`}>
                      <Short value={x.endpointId} />
                    </Link>{' '}
                    · <Link to={runs({ endpointId: x.endpointId })}>runs</Link>
                  </>
                ),
              },
            ]}
          />
          <Breakdown
            title="By tool command (events)"
            testId="shadow-by-command"
            rows={r.byToolCommand}
            rowKey={(x) => `${x.toolName ?? ''}\u0000${x.toolCommand ?? ''}`}
            columns={[
              { header: 'Tool', cell: (x) => x.toolName ?? '—' },
              {
                header: 'Command',
                cell: (x) =>
                  x.toolCommand ? (
                    <Link to={runs({ toolCommand: x.toolCommand })}>
                      <code>{x.toolCommand}</code>
                    </Link>
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
          {r.samples.length > 0 ? (
            <Card title="Sample events" className="span-2">
              <DataTable
                testId="shadow-samples"
                rows={r.samples}
                rowKey={(x) => `${x.category}:${x.shadowRunId}`}
                columns={[
                  {
                    header: 'Category',
                    cell: (x) => CATEGORIES.find((c) => c.key === x.category)?.label ?? x.category,
                  },
                  { header: 'When', cell: (x) => <When at={x.recordedAt} /> },
                  { header: 'Command', cell: (x) => (x.toolCommand ? <code>{x.toolCommand}</code> : '—') },
                  {
                    header: 'Shadow run',
                    cell: (x) => (
                      <Link to={`/hook-runs/${x.shadowRunId}?endpointId=${x.endpointId}`} data-testid="sample-run">
                        <Short value={x.shadowRunId} />
                      </Link>
                    ),
                  },
                  {
                    header: 'Enforced runs',
                    cell: (x) =>
                      x.enforcedRunIds.length === 0
                        ? '—'
                        : x.enforcedRunIds.map((id) => (
                            <Link key={id} to={`/hook-runs/${id}?endpointId=${x.endpointId}`}>
                              <Short value={id} />{' '}
                            </Link>
                          )),
                  },
                ]}
              />
            </Card>
          ) : null}
        </>
      )}
    </QueryState>
  );
}

/** The statuses in which a shadow release's layer is delivered (it can be promoted or aborted). */
export const LIVE_SHADOW = ['rolling', 'paused', 'completed'];

// Admins: promote a live shadow release to a staged release of the same version (rings defaulting to its own), with
// the impact preview of that version and its acknowledgement when the API requires one (428 shows the new preview).
export function PromoteShadow({ release, onDone }: { release: Release; onDone: (stagedId: string) => void }) {
  const queryClient = useQueryClient();
  const [rings, setRings] = useState(release.rings.join(', '));
  const [interval, setInterval] = useState(String(release.ringIntervalSec));
  const [maxApply, setMaxApply] = useState('0.05');
  const preview = useQuery({
    queryKey: queryKeys.groups.releasePreview(release.groupId, release.policyVersionId),
    queryFn: () =>
      api.GET('/v1/groups/{groupId}/release-preview', {
        params: { path: { groupId: release.groupId }, query: { policyVersionId: release.policyVersionId } },
      }),
    refetchOnWindowFocus: false,
  });
  const [ackedDigest, setAckedDigest] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);
  const needsAck = preview.data?.requiresAck === true;
  const acked = needsAck && ackedDigest === preview.data?.digest;
  const promote = async () => {
    try {
      const res = await api.POST('/v1/releases/{id}/promote', {
        params: { path: { id: release.id } },
        body: {
          rings: rings
            .split(/[\s,]+/)
            .filter(Boolean)
            .map(Number),
          ringIntervalSec: Number(interval),
          ...(maxApply.trim() ? { maxApplyFailureRate: Number(maxApply) } : {}),
          ...(acked && preview.data ? { previewAck: preview.data.digest } : {}),
        },
      });
      await queryClient.invalidateQueries({ queryKey: queryKeys.releases.all() });
      await queryClient.invalidateQueries({ queryKey: queryKeys.groups.releases(release.groupId) });
      onDone(res.release.id);
    } catch (err) {
      // The impact changed since it was acknowledged (or was not): show the new preview and ask again.
      if (err instanceof ApiError && err.status === 428) {
        setAckedDigest(null);
        setChanged(true);
        await preview.refetch();
      }
      throw err;
    }
  };
  return (
    <Card title="Promote to the enforced policy" className="span-2">
      <p className="hint">
        Promoting makes version v{release.policyVersion} the group&apos;s enforced policy as a staged release; its
        shadow layer is removed. The audit log keeps this report&apos;s totals with the promotion.
      </p>
      <div className="form-grid">
        <label htmlFor="promote-rings">Rings (cumulative %)</label>
        <input id="promote-rings" value={rings} onChange={(e) => setRings(e.target.value)} />
        <label htmlFor="promote-interval">Interval between rings (s)</label>
        <input
          id="promote-interval"
          inputMode="numeric"
          value={interval}
          onChange={(e) => setInterval(e.target.value)}
        />
        <label htmlFor="promote-apply">Pause above apply-failure rate</label>
        <input id="promote-apply" inputMode="decimal" value={maxApply} onChange={(e) => setMaxApply(e.target.value)} />
      </div>
      {preview.isLoading ? <Loading what="impact preview" /> : null}
      <ErrorBox error={preview.error} title="The impact preview failed" />
      {preview.data ? (
        <PreviewPanel
          preview={preview.data}
          acked={acked}
          changed={changed}
          onAck={(yes) => {
            setAckedDigest(yes ? preview.data.digest : null);
            if (yes) setChanged(false);
          }}
        />
      ) : null}
      <div className="button-row">
        <ConfirmButton
          label="Promote"
          title="Promote this shadow release?"
          body={`Version v${release.policyVersion} becomes the enforced policy, ring by ring (${rings}%), and the shadow layer is removed from every endpoint.`}
          confirmLabel="Promote"
          disabled={preview.isLoading || preview.isFetching || (needsAck && !acked)}
          onConfirm={promote}
        />
      </div>
    </Card>
  );
}
