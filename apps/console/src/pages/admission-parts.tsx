// An admin's enrollment decisions: the "Pending approval" list (duplicate machine ids, with the endpoint each one
// duplicates) and the Approve / Reject / Re-admit buttons, each behind a confirmation. Auditors see no button.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from '../api/client';
import { ConfirmRow } from '../components/confirm-row';
import { DataTable } from '../components/list';
import { ago, Card, ConfirmButton, ErrorBox, When } from '../components/ui';
import { Link } from '../router';
import { useCanWrite } from '../session';
import { queryKeys } from '../query-keys';

type Endpoint = Schemas['EndpointViewDto'];

/** The queries whose answers change with a decision (every endpoint list and view, the findings). */
const AFFECTED = [queryKeys.endpoints.all(), queryKeys.findings.all()];

// Refetches everything a decision changes.
function useRefresh(): () => Promise<void> {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all(AFFECTED.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
}

// Approve and Reject for a pending endpoint, Re-admit for a revoked one (admins only; nothing otherwise).
export function AdmissionActions({ endpoint: e, small }: { endpoint: Endpoint; small?: boolean }) {
  const canWrite = useCanWrite();
  const refresh = useRefresh();
  if (!canWrite) return null;
  const id = e.id;
  // In a table row the confirmation opens in place; on the endpoint's page it is a dialog.
  const Confirm: typeof ConfirmButton = small ? ConfirmRow : ConfirmButton;
  const dup = e.duplicate;
  if (e.admission === 'pending') {
    return (
      <>
        {e.revokedAt ? null : (
          <Confirm
            label="Approve"
            title={`Approve ${e.hostname}?`}
            confirmLabel="Approve"
            body={
              <p>
                {e.hostname} becomes an active endpoint of group {e.groupName}.{' '}
                {dup
                  ? `${dup.hostname} (group ${dup.groupName}, last seen ${ago(dup.lastSeenAt)}) is retired: its ` +
                    'credential stops working at once. Approve only if this is the same machine, re-installed.'
                  : 'The endpoint it duplicated no longer exists.'}
              </p>
            }
            onConfirm={async () => {
              await api.POST('/v1/endpoints/{id}/approve', { params: { path: { id } } });
              await refresh();
            }}
          />
        )}{' '}
        <Confirm
          label="Reject"
          danger
          title={`Reject ${e.hostname}?`}
          confirmLabel="Reject"
          body={
            <p>
              {e.hostname} never gets a working credential (final). {dup ? `${dup.hostname} stays as it is.` : ''}
            </p>
          }
          onConfirm={async () => {
            await api.POST('/v1/endpoints/{id}/reject', { params: { path: { id } } });
            await refresh();
          }}
        />
      </>
    );
  }
  if (e.admission === 'active' && e.revokedAt) {
    return (
      <Confirm
        label="Re-admit"
        title={`Re-admit ${e.hostname}?`}
        confirmLabel="Re-admit"
        body={
          <p>
            Its credential works again on every API instance and it receives its group&apos;s bundle. Refused while
            another admitted endpoint holds its machine id.
          </p>
        }
        onConfirm={async () => {
          await api.POST('/v1/endpoints/{id}/readmit', { params: { path: { id } } });
          await refresh();
        }}
      />
    );
  }
  return null;
}

// Enrollments that claimed a known machine id without proof of its key, awaiting an admin (hidden when none).
export function PendingApproval() {
  const q = useQuery({
    queryKey: queryKeys.endpoints.pending(),
    queryFn: () => api.GET('/v1/endpoints', { params: { query: { admission: 'pending', limit: 200 } } }),
    refetchInterval: 10_000,
  });
  if (q.error) return <ErrorBox error={q.error} />;
  const items = q.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <Card title={`Pending approval (${items.length}${q.data?.nextCursor ? '+' : ''})`} className="span-2 pending-card">
      <p className="hint">
        Each enrolled with a machine id another endpoint already holds, without proof of that endpoint&apos;s key: a
        re-installed machine, or someone borrowing its identity. Approving retires the endpoint it duplicates.
      </p>
      <DataTable
        testId="pending-endpoints"
        rows={items}
        rowKey={(e) => e.id}
        rowProps={(e) => ({ 'data-id': e.id })}
        columns={[
          {
            header: 'New enrollment',
            cell: (e) => (
              <>
                <Link to={`/endpoints/${e.id}`}>{e.hostname}</Link> <span className="muted">{e.platform}</span>
              </>
            ),
          },
          { header: 'Group', cell: (e) => <Link to={`/groups/${e.groupId}`}>{e.groupName}</Link> },
          { header: 'Enrolled', cell: (e) => <When at={e.enrolledAt} /> },
          {
            header: 'Duplicates',
            cell: (e) =>
              e.duplicate ? (
                <>
                  <Link to={`/endpoints/${e.duplicate.id}`}>{e.duplicate.hostname}</Link>{' '}
                  <span className="muted">in {e.duplicate.groupName}</span>
                </>
              ) : (
                <span className="muted">gone</span>
              ),
          },
          {
            header: 'Its last check-in',
            cell: (e) => ago(e.duplicate?.lastSeenAt ?? null),
            title: (e) => e.duplicate?.lastSeenAt ?? undefined,
          },
          {
            header: 'Decision',
            cell: (e) => (
              <>
                <AdmissionActions endpoint={e} small />
                {e.revokedAt ? <span className="muted">revoked</span> : null}
              </>
            ),
          },
        ]}
      />
    </Card>
  );
}
