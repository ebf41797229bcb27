// One release's live rollout (polled every second): rings, gate state, pause / resume / advance / abort. A shadow
// release: its rings (endpoints that hold its shadow layer), its shadow report, promote and abort.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { Badge, Card, ConfirmButton, ErrorBox, Loading, PageHeader, Percent, Short, When } from '../components/ui';
import { Link, navigate } from '../router';
import { useCanWrite } from '../session';
import { RingBars } from './rollout-parts';
import { LIVE_SHADOW, PromoteShadow, ShadowReport } from './shadow-report';
import { queryKeys } from '../query-keys';

export default function Rollout({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.releases.rollout(id),
    queryFn: () => api.GET('/v1/releases/{id}/rollout', { params: { path: { id } } }),
    refetchInterval: 1_000,
  });
  const [reason, setReason] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.releases.rollout(id) });
  const act = async (action: 'pause' | 'resume' | 'advance' | 'abort') => {
    const path = { params: { path: { id } } };
    switch (action) {
      case 'pause':
        await api.POST('/v1/releases/{id}/pause', { ...path, body: reason.trim() ? { reason: reason.trim() } : {} });
        break;
      case 'resume':
        await api.POST('/v1/releases/{id}/resume', path);
        break;
      case 'advance':
        await api.POST('/v1/releases/{id}/advance', path);
        break;
      case 'abort':
        await api.POST('/v1/releases/{id}/abort', path);
        break;
    }
    await refresh();
  };
  if (q.isPending) return <Loading what="rollout" />;
  if (q.error) return <ErrorBox error={q.error} />;
  const { release, gate } = q.data;
  const shadow = release.strategy === 'shadow';
  const live = release.status === 'rolling' || release.status === 'paused';
  const lastRing = release.currentRing >= release.rings.length - 1;
  return (
    <>
      <PageHeader
        title={`${shadow ? 'Shadow release' : 'Release'} · revision ${release.revision}`}
        subtitle={
          <>
            Policy version{' '}
            <Link to={`/policies/${release.policyId}?v=${release.policyVersion}`}>v{release.policyVersion}</Link> ·{' '}
            {release.strategy} · <Link to={`/groups/${release.groupId}`}>group</Link> · created{' '}
            <When at={release.createdAt} /> by {release.createdBy ?? 'unknown'}
          </>
        }
        actions={
          <span className="live" aria-live="polite">
            <Badge value={release.status} /> {live ? <span className="pulse" title="updated every second" /> : null}
          </span>
        }
      />
      {shadow ? (
        <p className="notice" role="note">
          Observe mode: its hooks run beside the group&apos;s enforced policy on the endpoints of the open rings, and
          what they would have done is only recorded.
          {release.promotedReleaseId ? (
            <>
              {' '}
              Promoted to <Link to={`/releases/${release.promotedReleaseId}`}>a staged release</Link>.
            </>
          ) : null}
        </p>
      ) : null}
      {release.promotedFromId ? (
        <p className="notice" role="note">
          Promoted from <Link to={`/releases/${release.promotedFromId}`}>a shadow release</Link> (its report stays
          there).
        </p>
      ) : null}
      {release.pausedReason ? (
        <p className="notice" role="status">
          Paused: {release.pausedReason}
        </p>
      ) : null}
      <div className="grid-2">
        <Card title="Rings" className="span-2">
          <RingBars rollout={q.data} />
          <p className="hint">
            Ring {release.currentRing + 1} of {release.rings.length} is open
            {release.strategy !== 'immediate' && live
              ? ` · the next ring opens ${release.ringIntervalSec} s after the previous one unless the gate holds it`
              : ''}
            .
          </p>
        </Card>
        {shadow ? <ShadowReport release={release} /> : null}
        {shadow ? null : (
          <Card title="Gate">
            <dl className="facts">
              <dt>Apply failure rate</dt>
              <dd>
                <Percent value={gate.applyFailureRate} /> (pauses above <Percent value={release.maxApplyFailureRate} />)
              </dd>
              <dt>Hook failure rate</dt>
              <dd>
                <Percent value={gate.hookFailureRate} />{' '}
                {release.maxHookFailureRate === null ? (
                  '(no hook gate)'
                ) : (
                  <>
                    (mean of each reporting endpoint&apos;s own rate; pauses above{' '}
                    <Percent value={release.maxHookFailureRate} /> once {release.minReportingEndpoints} endpoints with{' '}
                    {release.minHookRuns}+ runs report)
                  </>
                )}
              </dd>
              <dt>Endpoints on this revision</dt>
              <dd>{gate.endpointsOnRevision}</dd>
              <dt>Reporting endpoints</dt>
              <dd>
                {gate.reportingEndpoints} of {gate.appliedEndpoints} that applied it
              </dd>
              <dt>Hook runs on this revision</dt>
              <dd>
                {gate.hookRunsOnRevision}
                {gate.hookRunsNotCounted > 0 ? ` (${gate.hookRunsNotCounted} more not counted: never served)` : ''}
              </dd>
              {gate.hookEndpoints.some((e) => e.reporting) ? (
                <>
                  <dt>Worst endpoints</dt>
                  <dd>
                    {gate.hookEndpoints
                      .filter((e) => e.reporting)
                      .slice(0, 3)
                      .map((e) => (
                        <div key={e.endpointId}>
                          <Link to={`/endpoints/${e.endpointId}`}>{e.hostname}</Link> <Percent value={e.failureRate} />{' '}
                          ({e.failed}/{e.ran})
                        </div>
                      ))}
                  </dd>
                </>
              ) : null}
            </dl>
          </Card>
        )}
        <Card title="Release" className={shadow ? 'span-2' : undefined}>
          <dl className="facts">
            <dt>Rings</dt>
            <dd>{release.rings.map((r) => `${r}%`).join(' → ')}</dd>
            <dt>Bundle digest</dt>
            <dd>
              <Short value={release.digest} n={24} />
            </dd>
            <dt>Signed by</dt>
            <dd>
              <Short value={release.keyId} n={24} />
            </dd>
            <dt>Completed</dt>
            <dd>
              <When at={release.completedAt} />
            </dd>
          </dl>
        </Card>
        {canWrite && live ? (
          <Card title="Control" className="span-2">
            <div className="form-row">
              <label htmlFor="reason">Reason for pausing (recorded in the audit log)</label>
              <input id="reason" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
            </div>
            <div className="button-row">
              {release.status === 'rolling' ? (
                <ConfirmButton
                  label="Pause"
                  title="Pause this rollout?"
                  body="No further ring opens until it is resumed. Endpoints that already have the revision keep it."
                  onConfirm={() => act('pause')}
                />
              ) : (
                <ConfirmButton
                  label="Resume"
                  title="Resume this rollout?"
                  body="Rings open again on their interval, gates permitting."
                  onConfirm={() => act('resume')}
                />
              )}
              {release.strategy !== 'immediate' && !lastRing ? (
                <ConfirmButton
                  label="Advance to next ring"
                  title="Open the next ring now?"
                  body={`Ring ${release.currentRing + 2} (${release.rings[release.currentRing + 1]}% of endpoints) receives the revision at once.`}
                  onConfirm={() => act('advance')}
                />
              ) : null}
              <ConfirmButton
                label="Abort"
                danger
                title={shadow ? 'Abort this shadow release?' : 'Abort this rollout?'}
                body={
                  shadow
                    ? 'Its shadow layer is removed from every endpoint and its hooks stop recording. The enforced policy does not change. This cannot be undone.'
                    : "Every endpoint goes back to the previous release's content under a new revision. This cannot be undone."
                }
                confirmLabel={shadow ? 'Abort shadow release' : 'Abort rollout'}
                onConfirm={() => act('abort')}
              />
            </div>
          </Card>
        ) : null}
        {shadow && canWrite && release.status === 'completed' ? (
          <Card title="Control" className="span-2">
            <ConfirmButton
              label="Abort"
              danger
              title="Abort this shadow release?"
              body="Its shadow layer is removed from every endpoint and its hooks stop recording. The enforced policy does not change. This cannot be undone."
              confirmLabel="Abort shadow release"
              onConfirm={() => act('abort')}
            />
          </Card>
        ) : null}
        {shadow && canWrite && LIVE_SHADOW.includes(release.status) ? (
          <PromoteShadow release={release} onDone={(id) => navigate(`/releases/${id}`)} />
        ) : null}
      </div>
    </>
  );
}
