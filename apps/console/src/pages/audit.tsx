// Admin audit log: filtered entries (keyset pages), chain verification against the checkpoint kept in this
// browser (its signature checked here too), and (admins) the bundle-signing keys: list, add, activate, retire.
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, nextCursorOf, type Schemas } from '../api/client';
import type { operations } from '@hookwarden/admin-client';
import { type Checkpoint, checkSignature, loadCheckpoint, saveCheckpoint } from '../checkpoint';
import {
  Badge,
  Card,
  ConfirmButton,
  Empty,
  ErrorBox,
  Loading,
  MoreButton,
  PageHeader,
  Short,
  When,
} from '../components/ui';
import { AUDIT_FILTERS, type AuditFilter } from '../filters';
import { useAction } from '../components/use-action';
import { navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { ConfirmRow } from '../components/confirm-row';
import { QueryList } from '../components/list';
import { queryKeys } from '../query-keys';

type AuditQuery = NonNullable<operations['AuditLogController_list']['parameters']['query']>;
const FILTERS: ReadonlyArray<{
  key: AuditFilter;
  label: string;
  kind: string;
  placeholder?: string;
  options?: readonly string[];
}> = AUDIT_FILTERS;

type Entry = Schemas['AuditEntryPageDto']['items'][number];

function Entries() {
  const { query } = useLocation();
  const applied: Partial<Record<AuditFilter, string>> = {};
  for (const f of FILTERS) {
    const v = query.get(f.key);
    if (v) applied[f.key] = v;
  }
  const [draft, setDraft] = useState(applied);
  const [open, setOpen] = useState<string | null>(null);
  const q = useInfiniteQuery({
    queryKey: queryKeys.auditLog.list(applied),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/audit-log', {
        params: { query: { ...(applied as AuditQuery), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const f of FILTERS) {
      const v = draft[f.key]?.trim();
      if (v) next.set(f.key, v);
    }
    navigate(`/audit${next.size ? `?${next.toString()}` : ''}`, true);
  };
  const items: Entry[] = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card title="Entries" className="span-2">
      <form className="filters" onSubmit={submit} aria-label="Audit filters">
        {FILTERS.map((f) => (
          <div className="filter" key={f.key}>
            <label htmlFor={`a-${f.key}`}>{f.label}</label>
            {f.options ? (
              <select
                id={`a-${f.key}`}
                value={draft[f.key] ?? ''}
                onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}
              >
                <option value="">any</option>
                {f.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={`a-${f.key}`}
                value={draft[f.key] ?? ''}
                placeholder={f.placeholder}
                onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}
              />
            )}
          </div>
        ))}
        <div className="filter-actions">
          <button type="submit" className="btn-primary">
            Apply filters
          </button>
          <button
            type="button"
            className="btn-ghost"
            onClick={() => {
              setDraft({});
              navigate('/audit', true);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {q.isPending ? <Loading /> : null}
      <ErrorBox error={q.error} />
      {q.data && items.length === 0 ? <Empty>No entry matches.</Empty> : null}
      {items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Seq</th>
              <th scope="col">When</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <td>{e.seq}</td>
                <td>
                  <When at={e.at} />
                </td>
                <td>
                  {e.actorName} <span className="muted">({e.role})</span>
                </td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>
                  {e.targetType} <Short value={e.targetId} n={10} />
                </td>
                <td>
                  <button
                    type="button"
                    className="btn-ghost btn-small"
                    aria-expanded={open === e.id}
                    onClick={() => setOpen(open === e.id ? null : e.id)}
                  >
                    {open === e.id ? 'Hide' : 'Show'}
                  </button>
                  {open === e.id ? (
                    <pre className="code-block small">
                      {JSON.stringify(
                        {
                          details: e.details,
                          hash: e.hash,
                          prevHash: e.prevHash,
                          requestId: e.requestId,
                          clientIp: e.clientIp,
                        },
                        null,
                        2,
                      )}
                    </pre>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MoreButton hasMore={q.hasNextPage} loading={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()} />
    </Card>
  );
}

type Verify = Schemas['VerifyResultDto'];

function VerifyCard() {
  const [kept, setKept] = useState<Checkpoint | null>(loadCheckpoint);
  const [result, setResult] = useState<Verify | null>(null);
  const [signature, setSignature] = useState<boolean | null | undefined>(undefined);
  const {
    run: verify,
    busy,
    error,
  } = useAction(async () => {
    setSignature(undefined);
    const q = kept ? { checkpointSeq: kept.seq, checkpointHash: kept.hash } : {};
    const r = await api.GET('/v1/audit-log/verify', { params: { query: q } });
    setResult(r);
    if (r.ok && r.checkpoint) {
      const trusted = await api.GET('/v1/signing-keys/trusted');
      const sig = await checkSignature(r.checkpoint, trusted.keys);
      setSignature(sig);
      if (sig !== false) {
        saveCheckpoint(r.checkpoint);
        setKept(r.checkpoint);
      }
    }
  });
  return (
    <Card title="Verify the chain">
      <p className="hint">
        Recomputes every entry's hash and link on the server and checks the chain still reaches the checkpoint kept in
        this browser from the last verify.
      </p>
      {kept ? (
        <dl className="facts" aria-label="Kept checkpoint">
          <dt>Kept checkpoint</dt>
          <dd>
            seq {kept.seq} · <Short value={kept.hash} n={16} /> · <When at={kept.at} />
          </dd>
          <dt>Signed by</dt>
          <dd>
            <Short value={kept.keyId} n={24} />
          </dd>
        </dl>
      ) : (
        <p className="muted">No checkpoint kept yet: the first verify keeps one.</p>
      )}
      <button type="button" className="btn-primary" onClick={() => void verify()} disabled={busy}>
        {busy ? 'Verifying…' : 'Verify now'}
      </button>
      <ErrorBox error={error} />
      {result ? (
        <div className={result.ok ? 'verify-ok' : 'verify-bad'} role="status" data-testid="verify-result">
          {result.ok ? (
            <>
              <strong>Chain intact</strong> — {result.checked} entries checked.
              {result.checkpoint ? (
                <pre className="code-block small">{JSON.stringify(result.checkpoint, null, 2)}</pre>
              ) : null}
              <p>
                Signature:{' '}
                {signature === true
                  ? 'valid (checked in this browser with the trusted key)'
                  : signature === false
                    ? 'INVALID — the checkpoint was not kept'
                    : signature === null
                      ? 'not checked (this browser has no Ed25519 or the key is not trusted)'
                      : '…'}
              </p>
            </>
          ) : (
            <>
              <strong>Chain broken: {result.problem ?? 'unknown problem'}</strong>
              <p>
                {result.reason ?? ''} {result.firstBrokenSeq ? `First broken entry: seq ${result.firstBrokenSeq}.` : ''}
              </p>
            </>
          )}
        </div>
      ) : null}
    </Card>
  );
}

function SigningKeys() {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: queryKeys.auditLog.signingKeys(), queryFn: () => api.GET('/v1/signing-keys') });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.auditLog.signingKeys() });
  const add = async (activate: boolean) => {
    await api.POST('/v1/signing-keys', { body: { activate } });
    await refresh();
  };
  return (
    <Card
      title="Signing keys"
      actions={
        <ConfirmButton
          label="Add key"
          title="Generate a new signing key?"
          body="The server generates an Ed25519 key and stores it; it is trusted by agents from their next key-list fetch. Activate it later to sign new bundles."
          confirmLabel="Generate key"
          onConfirm={() => add(false)}
        />
      }
    >
      <QueryList
        query={q}
        empty="No signing key."
        rowKey={(k) => k.kid}
        columns={[
          { header: 'Key', cell: (k) => <Short value={k.kid} n={26} /> },
          { header: 'Status', cell: (k) => <Badge value={k.status} /> },
          { header: 'Source', cell: (k) => k.source },
          { header: 'Created', cell: (k) => <When at={k.createdAt} /> },
          {
            header: 'Actions',
            className: 'button-row',
            cell: (k) =>
              k.status === 'trusted' ? (
                <>
                  <ConfirmRow
                    label="Activate"
                    title="Activate this key?"
                    body="Every API instance signs new bundles with it from its next release."
                    onConfirm={async () => {
                      await api.POST('/v1/signing-keys/{kid}/activate', { params: { path: { kid: k.kid } } });
                      await refresh();
                    }}
                  />
                  <ConfirmRow
                    label="Retire"
                    danger
                    title="Retire this key?"
                    body="It is dropped from the key list agents trust. The API refuses while a group is still served a bundle it signed."
                    onConfirm={async () => {
                      await api.POST('/v1/signing-keys/{kid}/retire', { params: { path: { kid: k.kid } } });
                      await refresh();
                    }}
                  />
                </>
              ) : null,
          },
        ]}
      />
    </Card>
  );
}

export default function Audit() {
  const canWrite = useCanWrite();
  return (
    <>
      <PageHeader title="Audit log" subtitle="Every change made through the API, hash-chained and verifiable." />
      <div className="grid-2">
        <VerifyCard />
        {canWrite ? <SigningKeys /> : null}
        <Entries />
      </div>
    </>
  );
}
