// One endpoint: platform, agent, applied revision and digest, drift and last errors, its recent hook runs, its
// enrollment decision; revoke, re-admit, approve or reject a pending duplicate.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from '../api/client';
import { ago, Badge, Card, ConfirmButton, Empty, ErrorBox, Loading, PageHeader, Short, When } from '../components/ui';
import { Link } from '../router';
import { useCanWrite } from '../session';
import { RunsTable } from './hook-runs-table';
import { readInventory } from '../inventory';
import { FindingsTable, InventoryHooksTable, inventoryPath } from './inventory-parts';
import { AdmissionActions } from './admission-parts';
import { queryKeys } from '../query-keys';

/** Badge tones of the enrollment decisions. */
const ADMISSION_TONES = { active: 'ok', pending: 'warn', rejected: 'bad', retired: 'muted' } as const satisfies Record<
  Schemas['EndpointViewDto']['admission'],
  string
>;

export default function Endpoint({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.endpoints.one(id),
    queryFn: () => api.GET('/v1/endpoints/{id}', { params: { path: { id } } }),
    refetchInterval: 5_000,
  });
  const runs = useQuery({
    queryKey: queryKeys.hookRuns.list({ endpointId: id, limit: 20 }),
    queryFn: () => api.GET('/v1/hook-runs', { params: { query: { endpointId: id, limit: 20 } } }),
    refetchInterval: 10_000,
  });
  const findings = useQuery({
    queryKey: queryKeys.findings.list({ endpointId: id, limit: 20 }),
    queryFn: () => api.GET('/v1/findings', { params: { query: { endpointId: id, limit: 20 } } }),
  });
  // Every stored report records a change, so an endpoint without one has never reported: its inventory is not asked
  // for (that would be a 404 in the browser's console).
  const lastChange = useQuery({
    queryKey: queryKeys.inventory.changes({ endpointId: id, limit: 1 }),
    queryFn: () => api.GET('/v1/inventory/changes', { params: { query: { endpointId: id, limit: 1 } } }),
  });
  const reported = (lastChange.data?.items.length ?? 0) > 0;
  const inventory = useQuery({
    queryKey: queryKeys.endpoints.inventory(id),
    queryFn: () => api.GET('/v1/endpoints/{id}/inventory', { params: { path: { id } } }),
    enabled: reported,
  });
  const invFindings = useQuery({
    queryKey: queryKeys.inventory.findings({ endpointId: id }),
    queryFn: () => api.GET('/v1/inventory/findings', { params: { query: { endpointId: id } } }),
    enabled: reported,
  });
  if (q.isPending) return <Loading what="endpoint" />;
  if (q.error) return <ErrorBox error={q.error} />;
  const e = q.data;
  const errors = e.lastStatus?.errors ?? [];
  const digest = e.appliedDigest;
  return (
    <>
      <PageHeader
        title={`Endpoint · ${e.hostname}`}
        subtitle={
          <>
            In group <Link to={`/groups/${e.groupId}`}>{e.groupName}</Link> · enrolled <When at={e.enrolledAt} />
          </>
        }
        actions={
          canWrite && e.state !== 'revoked' && e.admission === 'active' ? (
            <ConfirmButton
              label="Revoke endpoint"
              danger
              title={`Revoke ${e.hostname}?`}
              body="Its credential stops working at once (401 on every route); its managed layer stays as it is on disk. Final: only an admin's re-admission brings it back, never a new enrollment."
              onConfirm={async () => {
                await api.POST('/v1/endpoints/{id}/revoke', { params: { path: { id } } });
                await queryClient.invalidateQueries({ queryKey: queryKeys.endpoints.one(id) });
              }}
            />
          ) : (
            <AdmissionActions endpoint={e} />
          )
        }
      />
      <div className="grid-2">
        <Card title="State">
          <dl className="facts">
            <dt>State</dt>
            <dd>
              <Badge value={e.fleetState} />{' '}
              {e.state !== e.fleetState ? <span className="muted">(reported {e.state})</span> : null}
            </dd>
            <dt>Admission</dt>
            <dd>
              <Badge value={e.admission} tone={ADMISSION_TONES[e.admission]} />{' '}
              {e.duplicate ? (
                <span className="muted">
                  duplicate of <Link to={`/endpoints/${e.duplicate.id}`}>{e.duplicate.hostname}</Link> (
                  {e.duplicate.admission}
                  {e.duplicate.revokedAt ? ', revoked' : ''})
                </span>
              ) : e.duplicateOf ? (
                <span className="muted">
                  duplicate of <Short value={e.duplicateOf} n={8} /> (gone)
                </span>
              ) : null}
            </dd>
            <dt>Last check-in</dt>
            <dd>
              {ago(e.lastSeenAt)} {e.lastSeenAt ? <When at={e.lastSeenAt} /> : null}
            </dd>
            <dt>Applied revision</dt>
            <dd>{e.appliedRevision ?? '—'}</dd>
            <dt>Applied policy version</dt>
            <dd>{e.appliedPolicyVersion === null ? '—' : `v${e.appliedPolicyVersion}`}</dd>
            <dt>Applied digest</dt>
            <dd>
              <Short value={digest} n={28} />
            </dd>
            <dt>Target revision</dt>
            <dd>{e.targetRevision ?? '—'}</dd>
            <dt>Shadow layer</dt>
            <dd data-testid="endpoint-shadow">
              {e.shadow.releaseId ? (
                <Link to={`/releases/${e.shadow.releaseId}`}>shadow release, revision {e.shadow.revision}</Link>
              ) : (
                'none'
              )}
              {e.shadow.error ? <div className="text-bad">last refused: {e.shadow.error}</div> : null}
            </dd>
            {e.revokedAt ? (
              <>
                <dt>Revoked</dt>
                <dd>
                  <When at={e.revokedAt} />
                </dd>
              </>
            ) : null}
          </dl>
        </Card>
        <Card title="Machine">
          <dl className="facts">
            <dt>Hostname</dt>
            <dd>{e.hostname}</dd>
            <dt>Platform</dt>
            <dd>{e.platform}</dd>
            <dt>Agent version</dt>
            <dd>{e.agentVersion}</dd>
            <dt>Contract</dt>
            <dd>{e.contractVersion ?? 'not reported (counted as 1)'}</dd>
            <dt>Machine id</dt>
            <dd>
              <Short value={e.machineId} n={24} />
            </dd>
            <dt>Endpoint key</dt>
            <dd>{e.keyId ? <Short value={e.keyId} n={24} /> : <span className="muted">legacy credential</span>}</dd>
            <dt>Uploads pending</dt>
            <dd>{e.uploadsPending}</dd>
            <dt>Records dropped (spool cap)</dt>
            <dd className={e.recordsDropped > 0 ? 'text-bad' : undefined}>{e.recordsDropped}</dd>
          </dl>
        </Card>
        <Card title="Drift and last errors" className="span-2">
          {errors.length === 0 ? (
            <p className="ok-line">No drift or error in the last report.</p>
          ) : (
            <ul className="error-list">
              {errors.map((msg, i) => (
                <li key={i}>{msg}</li>
              ))}
            </ul>
          )}
          {findings.data && findings.data.items.length > 0 ? (
            <>
              <h3>Findings</h3>
              <ul className="error-list">
                {findings.data.items.map((f) => (
                  <li key={f.id}>
                    <Badge value={f.kind} tone="warn" />{' '}
                    {f.kind === 'duplicate_machine_id' ? 'enrolled with a machine id another endpoint holds' : null}
                    {f.fromSeq !== null ? `seq ${f.fromSeq}–${f.toSeq ?? '?'}` : null} · detected{' '}
                    <When at={f.detectedAt} />
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </Card>
        <Card
          title="Hook inventory"
          className="span-2"
          actions={<Link to={inventoryPath('changes', { endpointId: id })}>Changes</Link>}
        >
          {lastChange.isPending || inventory.isLoading ? <Loading what="inventory" /> : null}
          <ErrorBox error={lastChange.error ?? inventory.error} />
          {lastChange.data && !reported ? (
            <Empty>This endpoint's agent has not reported an inventory yet.</Empty>
          ) : null}
          {inventory.data ? <EndpointInventory data={inventory.data} /> : null}
          {invFindings.data && invFindings.data.items.length > 0 ? (
            <>
              <h3>Inventory findings</h3>
              <FindingsTable items={invFindings.data.items} />
            </>
          ) : null}
          <ErrorBox error={invFindings.error} />
        </Card>
        <Card
          title="Recent hook runs"
          className="span-2"
          actions={<Link to={`/hook-runs?endpointId=${id}`}>Explore all</Link>}
        >
          {runs.isPending ? <Loading /> : null}
          <ErrorBox error={runs.error} />
          {runs.data ? <RunsTable items={runs.data.items} /> : null}
        </Card>
      </div>
    </>
  );
}

// The latest report: when, what the policy in force was, every hook with its trust and fate, skipped sources, warnings.
function EndpointInventory({ data }: { data: Schemas['EndpointInventoryDto'] }) {
  const inv = readInventory(data.inventory);
  return (
    <>
      <dl className="facts inline">
        <div className="fact">
          <dt>Collected</dt>
          <dd>
            <When at={data.collectedAt} />
          </dd>
        </div>
        <div className="fact">
          <dt>Received</dt>
          <dd>
            <When at={data.receivedAt} />
          </dd>
        </div>
        <div className="fact">
          <dt>Last changed</dt>
          <dd>
            <When at={data.changedAt} />
          </dd>
        </div>
        <div className="fact">
          <dt>Commands</dt>
          <dd>{inv.commandMode || '—'}</dd>
        </div>
        <div className="fact">
          <dt>Policy revision</dt>
          <dd>{inv.policyRevision ?? '—'}</dd>
        </div>
        <div className="fact">
          <dt>Hooks</dt>
          <dd>
            {inv.hooksEnabled ? <Badge value="on" tone="ok" /> : <Badge value="off" tone="bad" />}
            {inv.allowManagedHooksOnly ? ' managed only' : ''}
          </dd>
        </div>
      </dl>
      {inv.hooks.length === 0 ? <Empty>No hook in this report.</Empty> : <InventoryHooksTable hooks={inv.hooks} />}
      {inv.skippedSources.length > 0 ? (
        <>
          <h3>Skipped sources</h3>
          <ul className="error-list">
            {inv.skippedSources.slice(0, 200).map((s, i) => (
              <li key={i}>
                {s.layer} {s.user ? `(${s.user}) ` : ''}
                <Short value={s.path} n={60} tail />: {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {inv.warnings.length > 0 ? (
        <>
          <h3>Configuration warnings</h3>
          <ul className="error-list">
            {inv.warnings.slice(0, 200).map((w, i) => (
              <li key={i}>
                <Badge value={w.code} tone="warn" /> {w.message}
                {w.file ? (
                  <>
                    {' '}
                    <Short value={w.file} n={60} tail />
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
