// One group: its endpoints (filters, last check-in) and enrollment secrets (admins: create once-shown, revoke).
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, nextCursorOf, type Schemas } from '../api/client';
import type { operations } from '@hookwarden/admin-client';
import {
  ago,
  Badge,
  Card,
  ConfirmButton,
  CopyButton,
  Empty,
  ErrorBox,
  Loading,
  MoreButton,
  PageHeader,
  When,
} from '../components/ui';
import { useAction } from '../components/use-action';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { enrollCommand, fleetState } from '../domain';
import { queryKeys } from '../query-keys';

type EndpointQuery = NonNullable<operations['EndpointsController_list']['parameters']['query']>;
type EndpointState = NonNullable<EndpointQuery['state']>;
const STATES: EndpointState[] = ['pending', 'applied', 'failed', 'drifted', 'revoked'];
type Admission = NonNullable<EndpointQuery['admission']>;
const ADMISSIONS: Admission[] = ['active', 'pending', 'rejected', 'retired'];

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
  const q = useInfiniteQuery({
    queryKey: queryKeys.endpoints.list({ groupId, state, platform, admission }),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/endpoints', {
        params: {
          query: {
            groupId,
            limit: 100,
            ...(state ? { state } : {}),
            ...(platform ? { platform } : {}),
            ...(admission ? { admission } : {}),
            ...(pageParam ? { cursor: pageParam } : {}),
          },
        },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
    refetchInterval: 10_000,
  });
  const items = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card title="Endpoints" className="span-2">
      <div className="toolbar">
        <label htmlFor="ep-state">State</label>
        <select id="ep-state" value={state} onChange={(e) => setFilter('state', e.target.value)}>
          <option value="">any</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="ep-platform">Platform</label>
        <select id="ep-platform" value={platform} onChange={(e) => setFilter('platform', e.target.value)}>
          <option value="">any</option>
          {['linux', 'darwin', 'win32'].map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <label htmlFor="ep-admission">Admission</label>
        <select id="ep-admission" value={admission} onChange={(e) => setFilter('admission', e.target.value)}>
          <option value="">any</option>
          {ADMISSIONS.map((a) => (
            <option key={a} value={a}>
              {a === 'pending' ? 'pending approval' : a}
            </option>
          ))}
        </select>
      </div>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && items.length === 0 ? <Empty>No endpoint matches.</Empty> : null}
      {items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Hostname</th>
              <th scope="col">State</th>
              <th scope="col">Platform</th>
              <th scope="col">Agent</th>
              <th scope="col">Applied</th>
              <th scope="col">Last check-in</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <td>
                  <Link to={`/endpoints/${e.id}`}>{e.hostname}</Link>
                </td>
                <td>
                  <Badge value={fleetState(e)} />
                </td>
                <td>{e.platform}</td>
                <td>{e.agentVersion}</td>
                <td>
                  {e.appliedRevision === null ? (
                    <span className="muted">nothing yet</span>
                  ) : (
                    `rev ${e.appliedRevision} · v${e.appliedPolicyVersion ?? '?'}`
                  )}
                </td>
                <td title={e.lastSeenAt ?? undefined}>{ago(e.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MoreButton hasMore={q.hasNextPage} loading={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()} />
    </Card>
  );
}

type CreatedSecret = Schemas['CreatedEnrollmentSecretDto'];

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
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && q.data.items.length === 0 ? <Empty>No enrollment secret for this group.</Empty> : null}
      {q.data && q.data.items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Uses</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              {canWrite ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((s) => {
              const expired = s.expiresAt !== null && new Date(s.expiresAt).getTime() < Date.now();
              const used = s.maxUses !== null && s.uses >= s.maxUses;
              const state = s.revokedAt ? 'revoked' : expired ? 'expired' : used ? 'used up' : 'active';
              return (
                <tr key={s.id}>
                  <td>{s.name || <span className="muted">unnamed</span>}</td>
                  <td>
                    <code>{s.prefix}…</code>
                  </td>
                  <td>
                    {s.uses}
                    {s.maxUses !== null ? ` / ${s.maxUses}` : ''}
                  </td>
                  <td>
                    <When at={s.expiresAt} />
                  </td>
                  <td>
                    <Badge value={state} tone={state === 'active' ? 'ok' : 'muted'} />
                  </td>
                  {canWrite ? (
                    <td>
                      {state !== 'revoked' ? (
                        <ConfirmButton
                          label="Revoke"
                          danger
                          className="btn-small"
                          title="Revoke this enrollment secret?"
                          body="Machines can no longer enroll with it. Endpoints already enrolled are not affected."
                          onConfirm={async () => {
                            await api.POST('/v1/enrollment-secrets/{id}/revoke', { params: { path: { id: s.id } } });
                            await refresh();
                          }}
                        />
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
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
