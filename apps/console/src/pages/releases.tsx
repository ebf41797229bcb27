// Releases of a group: history, and (admins) a new release of a policy version: immediate, staged in rings, or a shadow
// release (beside the enforced policy, in rings, its hooks only observed until promoted or aborted).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, ApiError, type Schemas } from '../api/client';
import { Badge, Card, Empty, ErrorBox, Loading, PageHeader, When } from '../components/ui';
import { useAction } from '../components/use-action';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { PreviewPanel } from './release-preview';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';

type CreateRelease = Schemas['CreateReleaseDto'];

/** The strategies offered, with their label. */
const STRATEGIES: ReadonlyArray<[CreateRelease['strategy'], string]> = [
  ['staged', 'Staged in rings'],
  ['immediate', 'Immediate (every endpoint at once)'],
  ['shadow', 'Shadow: beside what the group enforces, only observed (promote or abort later)'],
];

// Parses "1, 5, 25, 100" into ring percentages (validation is the API's).
function parseRings(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((s) => Number(s));
}

function StartRelease({ groupId, onStarted }: { groupId: string; onStarted: (id: string) => void }) {
  const queryClient = useQueryClient();
  const policies = useQuery({
    queryKey: queryKeys.policies.list({ groupId }),
    queryFn: () => api.GET('/v1/policies', { params: { query: { groupId, limit: 200 } } }),
  });
  const [policyId, setPolicyId] = useState('');
  const chosenPolicy = policyId || policies.data?.items[0]?.id || '';
  const versions = useQuery({
    queryKey: queryKeys.policies.versions(chosenPolicy),
    queryFn: () =>
      api.GET('/v1/policies/{id}/versions', { params: { path: { id: chosenPolicy }, query: { limit: 200 } } }),
    enabled: chosenPolicy !== '',
  });
  const [versionId, setVersionId] = useState('');
  const [strategy, setStrategy] = useState<CreateRelease['strategy']>('staged');
  const shadow = strategy === 'shadow';
  const [rings, setRings] = useState('1, 5, 25, 100');
  const [interval, setInterval] = useState('3600');
  const [maxApply, setMaxApply] = useState('0.05');
  const [maxHook, setMaxHook] = useState('');
  const [minRuns, setMinRuns] = useState('20');
  const chosenVersion = versionId || versions.data?.items[0]?.id || '';
  // The impact of this version on the group's endpoints; a release that needs it names its digest as previewAck.
  const preview = useQuery({
    queryKey: queryKeys.groups.releasePreview(groupId, chosenVersion),
    queryFn: () =>
      api.GET('/v1/groups/{groupId}/release-preview', {
        params: { path: { groupId }, query: { policyVersionId: chosenVersion } },
      }),
    enabled: chosenVersion !== '',
    refetchOnWindowFocus: false,
  });
  // The digest the admin acknowledged: a preview that changes (new digest) needs a new acknowledgement.
  const [ackedDigest, setAckedDigest] = useState<string | null>(null);
  const [previewChanged, setPreviewChanged] = useState(false);
  // A shadow release enforces nothing: its impact is acknowledged when it is promoted.
  const needsAck = !shadow && preview.data?.requiresAck === true;
  const acked = needsAck && ackedDigest === preview.data?.digest;
  const start = useAction(async () => {
    const body: CreateRelease = { policyVersionId: chosenVersion, strategy };
    if (acked && preview.data) body.previewAck = preview.data.digest;
    if (strategy !== 'immediate') {
      body.rings = parseRings(rings);
      if (interval.trim()) body.ringIntervalSec = Number(interval);
    }
    if (strategy === 'staged') {
      if (maxApply.trim()) body.maxApplyFailureRate = Number(maxApply);
      if (maxHook.trim()) body.maxHookFailureRate = Number(maxHook);
      if (minRuns.trim()) body.minHookRuns = Number(minRuns);
    }
    try {
      const r = await api.POST('/v1/groups/{groupId}/releases', { params: { path: { groupId } }, body });
      await queryClient.invalidateQueries({ queryKey: queryKeys.groups.releases(groupId) });
      onStarted(r.id);
    } catch (err) {
      // 428: the preview changed since it was shown (or was not acknowledged): show the new one and ask again.
      if (err instanceof ApiError && err.status === 428) {
        start.setError(err);
        setAckedDigest(null);
        setPreviewChanged(true);
        await preview.refetch();
      }
      throw err;
    }
  });
  const { busy, error, setError } = start;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start.run();
  };
  if (policies.data && policies.data.items.length === 0) {
    return (
      <Empty>
        No policy in this group yet: <Link to="/policies">create one</Link> first.
      </Empty>
    );
  }
  return (
    <form onSubmit={submit} className="form-grid" aria-label="Start a release">
      <label htmlFor="rel-policy">Policy</label>
      <select
        id="rel-policy"
        value={chosenPolicy}
        onChange={(e) => {
          setPolicyId(e.target.value);
          setVersionId('');
          setError(null);
          setPreviewChanged(false);
        }}
      >
        {policies.data?.items.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <label htmlFor="rel-version">Version</label>
      <select
        id="rel-version"
        value={chosenVersion}
        onChange={(e) => {
          setVersionId(e.target.value);
          setError(null);
          setPreviewChanged(false);
        }}
      >
        {versions.data?.items.map((v) => (
          <option key={v.id} value={v.id}>
            v{v.number} {v.message ? `— ${v.message}` : ''}
          </option>
        ))}
      </select>
      <span className="label">Strategy</span>
      <div className="radio-row" role="radiogroup" aria-label="Strategy">
        {STRATEGIES.map(([s, label]) => (
          <label key={s}>
            <input type="radio" name="strategy" value={s} checked={strategy === s} onChange={() => setStrategy(s)} />{' '}
            {label}
          </label>
        ))}
      </div>
      {strategy !== 'immediate' ? (
        <>
          <label htmlFor="rel-rings">Rings (cumulative %)</label>
          <input id="rel-rings" value={rings} onChange={(e) => setRings(e.target.value)} />
          <label htmlFor="rel-interval">Interval between rings (s)</label>
          <input id="rel-interval" inputMode="numeric" value={interval} onChange={(e) => setInterval(e.target.value)} />
        </>
      ) : null}
      {strategy === 'staged' ? (
        <>
          <label htmlFor="rel-apply">Pause above apply-failure rate</label>
          <input id="rel-apply" inputMode="decimal" value={maxApply} onChange={(e) => setMaxApply(e.target.value)} />
          <label htmlFor="rel-hook">Pause above hook-failure rate</label>
          <input
            id="rel-hook"
            inputMode="decimal"
            placeholder="no hook gate"
            value={maxHook}
            onChange={(e) => setMaxHook(e.target.value)}
          />
          <label htmlFor="rel-min">Hook runs before the hook gate applies</label>
          <input id="rel-min" inputMode="numeric" value={minRuns} onChange={(e) => setMinRuns(e.target.value)} />
        </>
      ) : null}
      <div className="form-span">
        {preview.isLoading ? <Loading what="impact preview" /> : null}
        <ErrorBox error={preview.error} title="The impact preview failed" />
        {shadow ? (
          <p className="hint" data-testid="shadow-note">
            A shadow release enforces nothing: its hooks run beside the group&apos;s enforced policy and what they would
            have done is recorded (its release page shows the report). The impact preview is acknowledged when you
            promote it.
          </p>
        ) : preview.data ? (
          <PreviewPanel
            preview={preview.data}
            acked={acked}
            changed={previewChanged}
            onAck={(yes) => {
              setAckedDigest(yes ? preview.data.digest : null);
              if (yes) setPreviewChanged(false);
            }}
          />
        ) : null}
        <ErrorBox error={error} />
        <button
          type="submit"
          className="btn-primary"
          data-write
          disabled={busy || !chosenVersion || preview.isLoading || preview.isFetching || (needsAck && !acked)}
        >
          {busy ? 'Starting…' : shadow ? 'Start shadow release' : 'Start release'}
        </button>
      </div>
    </form>
  );
}

export default function Releases() {
  const { query } = useLocation();
  const canWrite = useCanWrite();
  const groups = useQuery(groupsQuery);
  const groupId = query.get('group') ?? groups.data?.items[0]?.id ?? '';
  const releases = useQuery({
    queryKey: queryKeys.groups.releases(groupId),
    queryFn: () => api.GET('/v1/groups/{groupId}/releases', { params: { path: { groupId } } }),
    enabled: groupId !== '',
    refetchInterval: 5_000,
  });
  return (
    <>
      <PageHeader title="Releases" subtitle="Make a policy version current for a group, at once or ring by ring." />
      <div className="toolbar">
        <label htmlFor="rel-group">Group</label>
        <select id="rel-group" value={groupId} onChange={(e) => navigate(`/releases?group=${e.target.value}`, true)}>
          {groups.data?.items.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </select>
      </div>
      <ErrorBox error={groups.error} />
      <div className="grid-2">
        <Card title="History" className={canWrite ? undefined : 'span-2'}>
          {releases.isPending && groupId ? <Loading /> : null}
          <ErrorBox error={releases.error} />
          {releases.data && releases.data.items.length === 0 ? <Empty>No release in this group yet.</Empty> : null}
          {releases.data && releases.data.items.length > 0 ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Revision</th>
                  <th scope="col">Version</th>
                  <th scope="col">Strategy</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {releases.data.items.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <Link to={`/releases/${r.id}`}>Revision {r.revision}</Link>
                    </td>
                    <td>v{r.policyVersion}</td>
                    <td>
                      {r.strategy}
                      {r.strategy !== 'immediate' ? ` (${r.rings.join('/')}%)` : ''}
                    </td>
                    <td>
                      <Badge value={r.status} />
                    </td>
                    <td>
                      <When at={r.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </Card>
        {canWrite && groupId ? (
          <Card title="Start a release">
            <StartRelease key={groupId} groupId={groupId} onStarted={(id) => navigate(`/releases/${id}`)} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
