// One group: its endpoints (filters, last check-in) and enrollment secrets (admins: create once-shown, revoke).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { QueryParams } from '@hookwarden/admin-client';
import { api, type Schemas } from '../api/client';
import { ConfirmRow } from '../components/confirm-row';
import { QueryList, usePagedList } from '../components/list';
import { PickList } from '../components/pick-list';
import { ENDPOINT_ADMISSIONS, ENDPOINT_STATES, PLATFORMS } from '../filters';
import { ago, Badge, Card, CopyButton, ErrorBox, Loading, PageHeader, When } from '../components/ui';
import { useAction } from '../components/use-action';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { enrollCommand } from '../domain';
import { queryKeys } from '../query-keys';

type EndpointQuery = QueryParams<'GET', '/v1/endpoints'>;
type EndpointState = NonNullable<EndpointQuery['state']>;
type Admission = NonNullable<EndpointQuery['admission']>;

function Endpoints({ groupId }: { groupId: string }) {
  const { query } = useLocation();
  const state = (query.get('state') ?? '') as EndpointState | '';
  const platform = query.get('platform') ?? '';
  const admission = (query.get('admission') ?? '') as Admission | '';
  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(query);
    if (v) next.set(k, v);
    else next.delete(k);
    navigate(`/groups/${groupId}?${next.toString()}`, true);
  };
  const q = usePagedList(
    queryKeys.endpoints.list({ groupId, state, platform, admission }),
    (cursor) =>
      api.GET('/v1/endpoints', {
        params: {
          query: {
            groupId,
            limit: 100,
            cursor,
            ...(state ? { state } : {}),
            ...(platform ? { platform } : {}),
            ...(admission ? { admission } : {}),
          },
        },
      }),
    { refetchInterval: 10_000 },
  );
  return (
    <Card title="Endpoints" className="span-2">
      <div className="toolbar">
        <PickList
          id="ep-state"
          label="State"
          value={state}
          options={ENDPOINT_STATES}
          onChange={(v) => setFilter('state', v)}
        />
        <PickList
          id="ep-platform"
          label="Platform"
          value={platform}
          options={PLATFORMS}
          onChange={(v) => setFilter('platform', v)}
        />
        <PickList
          id="ep-admission"
          label="Admission"
          value={admission}
          options={ENDPOINT_ADMISSIONS}
          labelOf={(a) => (a === 'pending' ? 'pending approval' : a)}
          onChange={(v) => setFilter('admission', v)}
        />
      </div>
      <QueryList
        query={q}
        empty="No endpoint matches."
        rowKey={(e) => e.id}
        columns={[
          { header: 'Hostname', cell: (e) => <Link to={`/endpoints/${e.id}`}>{e.hostname}</Link> },
          { header: 'State', cell: (e) => <Badge value={e.fleetState} /> },
          { header: 'Platform', cell: (e) => e.platform },
          { header: 'Agent', cell: (e) => e.agentVersion },
          {
            header: 'Applied',
            cell: (e) =>
              e.appliedRevision === null ? (
                <span className="muted">nothing yet</span>
              ) : (
                `rev ${e.appliedRevision} · v${e.appliedPolicyVersion ?? '?'}`
              ),
          },
          { header: 'Last check-in', cell: (e) => ago(e.lastSeenAt), title: (e) => e.lastSeenAt ?? undefined },
        ]}
      />
    </Card>
  );
}

type CreatedSecret = Schemas['CreatedEnrollmentSecretDto'];
type Secret = Schemas['EnrollmentSecretViewDto'];

// Whether an enrollment secret still admits machines.
function secretState(s: Secret): 'active' | 'expired' | 'used up' | 'revoked' {
  if (s.revokedAt) return 'revoked';
  if (s.expiresAt !== null && new Date(s.expiresAt).getTime() < Date.now()) return 'expired';
  return s.maxUses !== null && s.uses >= s.maxUses ? 'used up' : 'active';
}

function NewSecret({ groupId, onCreated }: { groupId: string; onCreated: (s: CreatedSecret) => void }) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [maxUses, setMaxUses] = useState('');
  const { run, busy, error } = useAction(async () => {
    const body: Schemas['CreateEnrollmentSecretDto'] = { name };
    if (expires) body.expiresAt = new Date(expires).toISOString();
    if (maxUses) body.maxUses = Number(maxUses);
    const s = await api.POST('/v1/groups/{groupId}/enrollment-secrets', { params: { path: { groupId } }, body });
    setName('');
    setExpires('');
    setMaxUses('');
    onCreated(s);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  return (
    <form onSubmit={submit} className="form-grid" aria-label="Create an enrollment secret">
      <label htmlFor="sec-name">Name</label>
      <input
        id="sec-name"
        maxLength={200}
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder="laptops-2026"
      />
      <label htmlFor="sec-expires">Expires</label>
      <input id="sec-expires" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
      <label htmlFor="sec-uses">Use limit</label>
      <input
        id="sec-uses"
        inputMode="numeric"
        placeholder="unlimited"
        value={maxUses}
        onChange={(e) => setMaxUses(e.target.value)}
      />
      <div className="form-span">
        <ErrorBox error={error} />
        <button type="submit" className="btn-primary" data-write disabled={busy}>
          {busy ? 'Creating…' : 'Create secret'}
        </button>
      </div>
    </form>
  );
}

function Secrets({ groupId }: { groupId: string }) {
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<CreatedSecret | null>(null);
  const q = useQuery({
    queryKey: queryKeys.groups.secrets(groupId),
    queryFn: () => api.GET('/v1/groups/{groupId}/enrollment-secrets', { params: { path: { groupId } } }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.groups.secrets(groupId) });
  return (
    <Card title="Enrollment secrets" className="span-2">
      {created ? (
        <div className="once" role="status" data-testid="new-secret">
          <strong>Secret created — it is shown only this once.</strong>
          <div className="copy-line">
            <code>{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
          <p>Enroll a machine with:</p>
          <div className="copy-line">
            <code data-testid="enroll-command">{enrollCommand(created.secret, window.location.origin)}</code>
            <CopyButton text={enrollCommand(created.secret, window.location.origin)} label="Copy command" />
          </div>
          <button type="button" className="btn-ghost" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </div>
      ) : null}
      <QueryList
        query={q}
        empty="No enrollment secret for this group."
        rowKey={(s) => s.id}
        columns={[
          { header: 'Name', cell: (s) => s.name || <span className="muted">unnamed</span> },
          { header: 'Prefix', cell: (s) => <code>{s.prefix}…</code> },
          { header: 'Uses', cell: (s) => `${s.uses}${s.maxUses !== null ? ` / ${s.maxUses}` : ''}` },
          { header: 'Expires', cell: (s) => <When at={s.expiresAt} /> },
          {
            header: 'State',
            cell: (s) => <Badge value={secretState(s)} tone={secretState(s) === 'active' ? 'ok' : 'muted'} />,
          },
          canWrite && {
            header: 'Actions',
            cell: (s) =>
              secretState(s) !== 'revoked' ? (
                <ConfirmRow
                  label="Revoke"
                  danger
                  title="Revoke this enrollment secret?"
                  body="Machines can no longer enroll with it. Endpoints already enrolled are not affected."
                  onConfirm={async () => {
                    await api.POST('/v1/enrollment-secrets/{id}/revoke', { params: { path: { id: s.id } } });
                    await refresh();
                  }}
                />
              ) : null,
          },
        ]}
      />
      {canWrite ? (
        <details className="inline-form">
          <summary>New enrollment secret</summary>
          <NewSecret
            groupId={groupId}
            onCreated={(s) => {
              setCreated(s);
              void refresh();
            }}
          />
        </details>
      ) : null}
    </Card>
  );
}

export default function Group({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const canWrite = useCanWrite();
  const g = useQuery({
    queryKey: queryKeys.groups.one(id),
    queryFn: () => api.GET('/v1/groups/{id}', { params: { path: { id } } }),
  });
  if (g.isPending) return <Loading what="group" />;
  if (g.error) return <ErrorBox error={g.error} />;
  return (
    <>
      <PageHeader
        title={`Group · ${g.data.name}`}
        subtitle={g.data.description || (g.data.isDefault ? 'The default group' : undefined)}
        actions={
          <>
            <Link to={`/releases?group=${id}`} className="btn-secondary">
              Releases
            </Link>
            <Link to={`/hook-runs?groupId=${id}`} className="btn-secondary">
              Hook runs
            </Link>
          </>
        }
      />
      <div className="grid-2">
        <Endpoints groupId={id} />
        {/* Enrollment secrets are admin-only in the API (even their list). */}
        {canWrite ? <Secrets groupId={id} /> : null}
      </div>
    </>
  );
}
