// New-version editor: requirements.toml with the API's own validation inline (line/column) as you type, managed
// files by upload or editor, and the base version carried so a concurrent edit answers 409/428 instead of winning.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useEffect, useRef, useState } from 'react';
import { api, ApiError, type Diagnostic, type Schemas } from '../api/client';
import { CodeEditor } from '../components/code';
import { Badge, Card, ErrorBox, Loading, locationOf, PageHeader } from '../components/ui';
import { useAction } from '../components/use-action';
import { type EditFile, fileFromBytes, fromBase64, octal } from '../files';
import { Link, navigate } from '../router';
import { useCanWrite } from '../session';
import { queryKeys } from '../query-keys';
import { policyQuery } from '../queries';

type Validation = Schemas['ValidationResultDto'];

const STARTER = `[hooks]
managed_dir = "/opt/hookwarden/hooks"

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/hookwarden/hooks/check.sh"
timeout = 30
`;

/** Wait after the last keystroke before asking the API to validate. */
const VALIDATE_DEBOUNCE_MS = 350;

// The request body's files.
const filesBody = (files: EditFile[]) =>
  files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding, mode: f.mode }));

export default function NewVersion({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const policy = useQuery(policyQuery(id));
  const latestNumber = policy.data?.latestVersion ?? null;
  const latest = useQuery({
    queryKey: queryKeys.policies.version(id, latestNumber ?? 0),
    queryFn: () =>
      api.GET('/v1/policies/{id}/versions/{n}', {
        params: { path: { id, n: latestNumber! }, query: { withContent: 'true' } },
      }),
    enabled: latestNumber !== null && latestNumber > 0,
    staleTime: Infinity,
  });
  const [toml, setToml] = useState<string | null>(null);
  const [files, setFiles] = useState<EditFile[] | null>(null);
  const [baseVersion, setBaseVersion] = useState<number | null>(null);
  const [message, setMessage] = useState('');
  const [validation, setValidation] = useState<Validation | null>(null);
  const [validateError, setValidateError] = useState<unknown>(null);
  // Creates the version (the editor is loaded whenever its button can be pressed).
  const {
    run: submit,
    busy,
    error: submitError,
    setError: setSubmitError,
  } = useAction(async () => {
    if (toml === null || files === null) return;
    const v = await api.POST('/v1/policies/{id}/versions', {
      params: { path: { id } },
      body: { toml, files: filesBody(files), message, baseVersion: baseVersion ?? 0 },
    });
    await queryClient.invalidateQueries({ queryKey: queryKeys.policies.one(id) });
    await queryClient.invalidateQueries({ queryKey: queryKeys.policies.versions(id) });
    navigate(`/policies/${id}?v=${v.number}`);
  });
  const [openFile, setOpenFile] = useState<number | null>(null);
  const [newPath, setNewPath] = useState('');
  const seq = useRef(0);

  // Start from the latest version (or a starter document for the first one).
  useEffect(() => {
    if (toml !== null || latestNumber === null) return;
    if (latestNumber === 0) {
      setToml(STARTER);
      setFiles([{ path: 'check.sh', mode: 0o755, encoding: 'utf8', content: '#!/bin/sh\nexit 0\n' }]);
      setBaseVersion(0);
    } else if (latest.data) {
      setToml(latest.data.toml);
      setFiles(latest.data.files.map((f) => fileFromBytes(f.path, f.mode, fromBase64(f.content ?? ''))));
      setBaseVersion(latest.data.number);
    }
  }, [latestNumber, latest.data, toml]);

  // Validate as you type (debounced); answers that arrive out of order are dropped.
  useEffect(() => {
    if (toml === null || files === null || !canWrite) return;
    const mine = ++seq.current;
    const t = setTimeout(() => {
      api
        .POST('/v1/policies/{id}/versions/validate', {
          params: { path: { id } },
          body: { toml, files: filesBody(files), message: '' },
        })
        .then(
          (data) => {
            if (mine !== seq.current) return;
            setValidation(data);
            setValidateError(null);
          },
          (err: unknown) => {
            if (mine !== seq.current) return;
            // A malformed request (e.g. a bad file path) is still the author's to fix: show its located details.
            if (err instanceof ApiError && err.status === 400) {
              setValidation({
                ok: false,
                errors: err.diagnostics as Validation['errors'],
                warnings: [],
              } as unknown as Validation);
              setValidateError(null);
            } else setValidateError(err);
          },
        );
    }, VALIDATE_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [toml, files, id, canWrite]);

  if (!canWrite) {
    return (
      <>
        <PageHeader title="New version" subtitle="Authoring policy versions is for admins." />
        <Card>
          <p>Only admins author policy versions.</p>
          <Link to={`/policies/${id}`}>Back to the policy</Link>
        </Card>
      </>
    );
  }
  if (policy.isPending || toml === null || files === null) return <Loading what="editor" />;
  if (policy.error) return <ErrorBox error={policy.error} />;

  const tomlDiagnostics: Diagnostic[] = [
    ...(validation?.errors ?? []).filter((d) => d.field === '$.toml' || d.line !== undefined),
    ...(validation?.warnings ?? []).filter((d) => d.line !== undefined),
  ];
  const fileDiagnostics = (i: number): Diagnostic[] =>
    [...(validation?.errors ?? []), ...(validation?.warnings ?? [])].filter(
      (d) => d.field?.startsWith(`$.files[${i}]`) || d.path?.startsWith(`$.files[${i}]`) || d.file === files[i]?.path,
    );
  const otherDiagnostics = [...(validation?.errors ?? []), ...(validation?.warnings ?? [])].filter(
    (d) => !tomlDiagnostics.includes(d) && !files.some((_, i) => fileDiagnostics(i).includes(d)),
  );

  const setFile = (i: number, patch: Partial<EditFile>) =>
    setFiles((fs) => fs!.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const upload = async (e: ChangeEvent<HTMLInputElement>) => {
    const picked = [...(e.target.files ?? [])];
    e.target.value = '';
    const added: EditFile[] = [];
    for (const f of picked) {
      const bytes = new Uint8Array(await f.arrayBuffer());
      added.push(fileFromBytes(f.name, /\.(sh|py|js|rb|pl|ps1)$/.test(f.name) ? 0o755 : 0o644, bytes));
    }
    setFiles((fs) => [...fs!.filter((f) => !added.some((a) => a.path === f.path)), ...added]);
  };
  const addFile = () => {
    const path = newPath.trim();
    if (!path) return;
    setFiles((fs) => [...fs!, { path, mode: 0o755, encoding: 'utf8', content: '#!/bin/sh\n' }]);
    setOpenFile(files.length);
    setNewPath('');
  };
  // 409/428: someone else created a version; the author may move the base to it and keep their text.
  const current =
    submitError instanceof ApiError && (submitError.status === 409 || submitError.status === 428)
      ? ((submitError.details as { currentVersion?: { number: number } } | null)?.currentVersion ?? null)
      : null;
  const status = !validation ? 'checking' : validation.ok ? 'valid' : 'invalid';
  return (
    <>
      <PageHeader
        title={`New version · ${policy.data.name}`}
        subtitle={`Based on ${baseVersion ? `version ${baseVersion}` : 'nothing (first version)'} — a newer version by someone else is refused rather than overwritten.`}
        actions={<Link to={`/policies/${id}`}>Cancel</Link>}
      />
      <div className="editor-layout">
        <Card
          title="requirements.toml"
          actions={
            <span data-testid="lint-status" className={`lint-status lint-${status}`} aria-live="polite">
              {status === 'checking'
                ? 'Checking…'
                : status === 'valid'
                  ? `Valid${validation!.warnings.length ? ` · ${validation!.warnings.length} warnings` : ''}`
                  : `${validation!.errors.length} problem${validation!.errors.length === 1 ? '' : 's'}`}
            </span>
          }
        >
          <CodeEditor value={toml} onChange={setToml} diagnostics={tomlDiagnostics} label="requirements.toml editor" />
          <ErrorBox error={validateError} title="Validation did not run" />
          {tomlDiagnostics.length + otherDiagnostics.length > 0 ? (
            <ul className="diagnostics" aria-label="Problems" data-testid="problems">
              {[...tomlDiagnostics, ...otherDiagnostics].map((d, i) => (
                <li key={i} className={`diag-${d.severity ?? 'error'}`}>
                  <Badge value={d.severity ?? 'error'} /> <code>{locationOf(d)}</code> {d.message}
                </li>
              ))}
            </ul>
          ) : null}
        </Card>
        <Card title={`Files in managed_dir (${files.length})`}>
          <table className="files">
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Mode</th>
                <th scope="col">Size</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((f, i) => (
                <tr
                  key={i}
                  className={fileDiagnostics(i).some((d) => d.severity !== 'warning') ? 'row-bad' : undefined}
                >
                  <td>
                    <input
                      aria-label={`Path of file ${i + 1}`}
                      className="mono"
                      value={f.path}
                      onChange={(e) => setFile(i, { path: e.target.value })}
                    />
                    {fileDiagnostics(i).map((d, j) => (
                      <div key={j} className="field-error">
                        {d.message}
                      </div>
                    ))}
                  </td>
                  <td>
                    <input
                      aria-label={`Mode of ${f.path}`}
                      className="mono mode"
                      value={octal(f.mode)}
                      onChange={(e) => {
                        const m = parseInt(e.target.value || '0', 8);
                        if (!Number.isNaN(m) && m <= 0o777) setFile(i, { mode: m });
                      }}
                    />
                  </td>
                  <td>{f.encoding === 'utf8' ? `${new TextEncoder().encode(f.content).length} B` : 'binary'}</td>
                  <td className="button-row">
                    {f.encoding === 'utf8' ? (
                      <button
                        type="button"
                        className="btn-ghost btn-small"
                        aria-expanded={openFile === i}
                        onClick={() => setOpenFile(openFile === i ? null : i)}
                      >
                        {openFile === i ? 'Close' : 'Edit'}
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className="btn-ghost btn-small"
                      onClick={() => {
                        setFiles((fs) => fs!.filter((_, j) => j !== i));
                        setOpenFile(null);
                      }}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {openFile !== null && files[openFile]?.encoding === 'utf8' ? (
            <CodeEditor
              key={openFile}
              value={files[openFile].content}
              onChange={(text) => setFile(openFile, { content: text })}
              language={false}
              label={`Content of ${files[openFile].path}`}
              minHeight={160}
            />
          ) : null}
          <div className="file-actions">
            <input
              aria-label="New file path"
              placeholder="lib/helper.sh"
              value={newPath}
              onChange={(e) => setNewPath(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addFile();
                }
              }}
            />
            <button type="button" className="btn-secondary" onClick={addFile} disabled={!newPath.trim()}>
              Add file
            </button>
            <label className="btn-secondary file-upload">
              Upload files…
              <input type="file" multiple onChange={(e) => void upload(e)} className="sr-only" />
            </label>
          </div>
        </Card>
        <Card title="Create">
          <label htmlFor="version-message">Message (what changed and why)</label>
          <textarea
            id="version-message"
            rows={3}
            maxLength={2000}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
          />
          <ErrorBox error={submitError} title="The version was not created" />
          {current ? (
            <p className="notice">
              Version {current.number} was created meanwhile. Review it, then{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  setBaseVersion(current.number);
                  setSubmitError(null);
                }}
              >
                base this edit on version {current.number}
              </button>{' '}
              (your text is kept).
            </p>
          ) : null}
          <button
            type="button"
            className="btn-primary"
            data-write
            onClick={() => void submit()}
            disabled={busy || status !== 'valid'}
          >
            {busy ? 'Creating…' : 'Create version'}
          </button>
        </Card>
      </div>
    </>
  );
}
