// One policy: its versions; a version's highlighted requirements.toml, files and lint warnings; a side-by-side diff
// of any two versions (TOML and every file).
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, type Schemas } from '../api/client';
import { CodeView, DiffView } from '../components/code';
import { Badge, Card, Empty, ErrorBox, Loading, locationOf, PageHeader, Short, When } from '../components/ui';
import { asText, fromBase64, octal } from '../files';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { queryKeys } from '../query-keys';
import { policyQuery } from '../queries';

type Version = Schemas['VersionViewDto'];

// A version with file contents (base64 from the API).
function useVersion(policyId: string, n: number | null) {
  return useQuery({
    queryKey: queryKeys.policies.version(policyId, n),
    queryFn: () =>
      api.GET('/v1/policies/{id}/versions/{n}', {
        params: { path: { id: policyId, n: n! }, query: { withContent: 'true' } },
      }),
    enabled: n !== null,
    staleTime: Infinity, // versions are immutable
  });
}

// The text of a stored file (null: binary).
function fileText(f: Version['files'][number]): string | null {
  return f.content === undefined ? '' : asText(fromBase64(f.content));
}

function VersionDetail({ version }: { version: Version }) {
  const [file, setFile] = useState<string | null>(null);
  const shown = version.files.find((f) => f.path === file) ?? null;
  const authorId = version.authorId;
  return (
    <>
      <Card title={`Version ${version.number}`} className="span-2">
        <dl className="facts inline">
          <dt>Digest</dt>
          <dd>
            <Short value={version.digest} n={30} />
          </dd>
          <dt>Author</dt>
          <dd title={authorId ?? undefined}>{version.authorName}</dd>
          <dt>Created</dt>
          <dd>
            <When at={version.createdAt} />
          </dd>
          <dt>Message</dt>
          <dd>{version.message || <span className="muted">—</span>}</dd>
        </dl>
        {version.warnings.length > 0 ? (
          <div className="warnings" aria-label="Lint warnings">
            <h3>Lint warnings</h3>
            <ul className="diagnostics">
              {version.warnings.map((w, i) => (
                <li key={i}>
                  <Badge value={w.severity} /> <code>{locationOf(w)}</code> {w.message}{' '}
                  <span className="muted">({w.code})</span>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <p className="ok-line">No lint warnings.</p>
        )}
      </Card>
      <Card title="requirements.toml" className="span-2">
        <CodeView value={version.toml} label={`requirements.toml of version ${version.number}`} />
      </Card>
      <Card title={`Files in managed_dir (${version.files.length})`} className="span-2">
        {version.files.length === 0 ? (
          <Empty>No files.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Mode</th>
                <th scope="col">Size</th>
                <th scope="col">sha256</th>
              </tr>
            </thead>
            <tbody>
              {version.files.map((f) => (
                <tr key={f.path}>
                  <td>
                    <button
                      type="button"
                      className="link-button mono"
                      aria-expanded={file === f.path}
                      onClick={() => setFile(file === f.path ? null : f.path)}
                    >
                      {f.path}
                    </button>
                  </td>
                  <td>
                    <code>{octal(f.mode)}</code>
                  </td>
                  <td>{f.size} B</td>
                  <td>
                    <Short value={f.sha256} n={16} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {shown ? (
          fileText(shown) === null ? (
            <p className="muted">{shown.path} is a binary file.</p>
          ) : (
            <CodeView value={fileText(shown)!} language={false} label={shown.path} />
          )
        ) : null}
      </Card>
    </>
  );
}

function Compare({ policyId, numbers }: { policyId: string; numbers: number[] }) {
  const { query } = useLocation();
  const a = Number(query.get('a') ?? numbers[1] ?? numbers[0]);
  const b = Number(query.get('b') ?? numbers[0]);
  const set = (k: 'a' | 'b', v: string) => {
    const next = new URLSearchParams(query);
    next.set(k, v);
    navigate(`/policies/${policyId}?${next.toString()}`, true);
  };
  const va = useVersion(policyId, Number.isFinite(a) ? a : null);
  const vb = useVersion(policyId, Number.isFinite(b) ? b : null);
  const summary = useQuery({
    queryKey: queryKeys.policies.diff(policyId, a, b),
    queryFn: () => api.GET('/v1/policies/{id}/versions/{a}/diff/{b}', { params: { path: { id: policyId, a, b } } }),
    enabled: Number.isFinite(a) && Number.isFinite(b),
    staleTime: Infinity,
  });
  const paths = useMemo(() => {
    const all = new Set<string>();
    for (const f of va.data?.files ?? []) all.add(f.path);
    for (const f of vb.data?.files ?? []) all.add(f.path);
    return ['requirements.toml', ...[...all].sort()];
  }, [va.data, vb.data]);
  const [path, setPath] = useState('requirements.toml');
  const textOf = (v: Version | undefined, p: string): string | null => {
    if (!v) return '';
    if (p === 'requirements.toml') return v.toml;
    const f = v.files.find((x) => x.path === p);
    return f ? fileText(f) : '';
  };
  const before = textOf(va.data, path);
  const after = textOf(vb.data, path);
  const status = new Map<string, string>();
  if (summary.data) {
    status.set('requirements.toml', summary.data.toml.status);
    for (const f of summary.data.files) status.set(f.path, f.status);
  }
  return (
    <Card title="Compare versions" className="span-2">
      <div className="toolbar">
        <label htmlFor="cmp-a">From</label>
        <select id="cmp-a" value={a} onChange={(e) => set('a', e.target.value)}>
          {numbers.map((n) => (
            <option key={n} value={n}>
              v{n}
            </option>
          ))}
        </select>
        <label htmlFor="cmp-b">To</label>
        <select id="cmp-b" value={b} onChange={(e) => set('b', e.target.value)}>
          {numbers.map((n) => (
            <option key={n} value={n}>
              v{n}
            </option>
          ))}
        </select>
        <label htmlFor="cmp-file">File</label>
        <select id="cmp-file" value={path} onChange={(e) => setPath(e.target.value)}>
          {paths.map((p) => (
            <option key={p} value={p}>
              {p} {status.get(p) && status.get(p) !== 'unchanged' ? `(${status.get(p)})` : ''}
            </option>
          ))}
        </select>
      </div>
      <ErrorBox error={va.error ?? vb.error ?? summary.error} />
      {summary.data ? (
        <p className="hint">
          {[summary.data.toml, ...summary.data.files].filter((f) => f.status !== 'unchanged').length} changed file(s):{' '}
          {[summary.data.toml, ...summary.data.files]
            .filter((f) => f.status !== 'unchanged')
            .map((f) => `${f.path} ${f.status.replace('_', ' ')}`)
            .join(', ') || 'none'}
        </p>
      ) : null}
      {va.isPending || vb.isPending ? <Loading /> : null}
      {va.data && vb.data ? (
        before === null || after === null ? (
          <p className="muted">Binary file: compare by digest in the list above.</p>
        ) : (
          <>
            <div className="diff-labels">
              <span>v{a}</span>
              <span>v{b}</span>
            </div>
            <DiffView before={before} after={after} language={path === 'requirements.toml'} />
          </>
        )
      ) : null}
    </Card>
  );
}

export default function Policy({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const policy = useQuery(policyQuery(id));
  const versions = useQuery({
    queryKey: queryKeys.policies.versions(id),
    queryFn: () => api.GET('/v1/policies/{id}/versions', { params: { path: { id }, query: { limit: 200 } } }),
  });
  const numbers = versions.data?.items.map((v) => v.number) ?? [];
  const selected = query.get('v') ? Number(query.get('v')) : (numbers[0] ?? null);
  const version = useVersion(id, selected);
  const tab = query.get('tab') === 'compare' ? 'compare' : 'version';
  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams(query);
    for (const [k, v] of Object.entries(next)) q.set(k, v);
    navigate(`/policies/${id}?${q.toString()}`, true);
  };
  if (policy.isPending) return <Loading what="policy" />;
  if (policy.error) return <ErrorBox error={policy.error} />;
  return (
    <>
      <PageHeader
        title={`Policy · ${policy.data.name}`}
        subtitle={
          <>
            {policy.data.description ? `${policy.data.description} · ` : ''}
            <Link to={`/groups/${policy.data.groupId}`}>its group</Link> · latest v{policy.data.latestVersion}
          </>
        }
        actions={
          canWrite ? (
            <Link to={`/policies/${id}/new`} className="btn-primary" data-write>
              New version
            </Link>
          ) : null
        }
      />
      <ErrorBox error={versions.error} />
      {versions.data && versions.data.items.length === 0 ? (
        <Card>
          <Empty>This policy has no version yet.</Empty>
        </Card>
      ) : null}
      {versions.data && versions.data.items.length > 0 ? (
        <div className="policy-layout">
          <Card title="Versions" className="version-list">
            <ul role="list">
              {versions.data.items.map((v) => (
                <li key={v.id}>
                  <button
                    type="button"
                    className={`version-item ${tab === 'version' && v.number === selected ? 'selected' : ''}`}
                    aria-current={tab === 'version' && v.number === selected ? 'true' : undefined}
                    onClick={() => go({ v: String(v.number), tab: 'version' })}
                  >
                    <strong>v{v.number}</strong>
                    <span className="muted small">{v.message || 'no message'}</span>
                    <span className="muted small">
                      {v.authorName} · <When at={v.createdAt} />
                    </span>
                    {v.warnings.length > 0 ? (
                      <span className="badge badge-warn">{v.warnings.length} warnings</span>
                    ) : null}
                  </button>
                </li>
              ))}
            </ul>
            {numbers.length > 1 ? (
              <button type="button" className="btn-secondary btn-block" onClick={() => go({ tab: 'compare' })}>
                Compare versions
              </button>
            ) : null}
          </Card>
          <div className="grid-2 policy-main">
            {tab === 'compare' ? (
              <Compare policyId={id} numbers={numbers} />
            ) : version.isPending ? (
              <Loading what="version" />
            ) : version.error ? (
              <ErrorBox error={version.error} />
            ) : (
              <VersionDetail version={version.data} />
            )}
          </div>
        </div>
      ) : null}
    </>
  );
}
