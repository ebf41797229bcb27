// Shared building blocks: page header, cards, tables, badges, the API error box, confirm dialog, copy button.
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiError } from '../api/client';
import { useAction } from './use-action';

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle ? <p className="subtitle">{subtitle}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card ${className ?? ''}`} aria-label={typeof title === 'string' ? title : undefined}>
      {title || actions ? (
        <div className="card-head">
          {title ? <h2>{title}</h2> : <span />}
          {actions ? <div className="actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

const TONES: Record<string, string> = {
  applied: 'ok',
  completed: 'ok',
  ran: 'ok',
  active: 'ok',
  allow: 'ok',
  ok: 'ok',
  rolling: 'info',
  pending: 'info',
  trusted: 'info',
  managed: 'ok',
  runs: 'ok',
  modified: 'warn',
  untrusted: 'bad',
  disabled: 'muted',
  known_bad_hook: 'bad',
  managed_hook_missing: 'warn',
  paused: 'warn',
  drifted: 'warn',
  stale: 'warn',
  'pending approval': 'warn',
  duplicate_machine_id: 'warn',
  rejected: 'muted',
  skipped: 'muted',
  superseded: 'muted',
  promoted: 'ok',
  retired: 'muted',
  revoked: 'muted',
  'never checked in': 'muted',
  failed: 'bad',
  timed_out: 'bad',
  aborted: 'bad',
  deny: 'bad',
  block: 'bad',
  error: 'bad',
  warning: 'warn',
};

export function Badge({ value, tone }: { value: string | null | undefined; tone?: string }) {
  if (!value) return <span className="muted">—</span>;
  return <span className={`badge badge-${tone ?? TONES[value] ?? 'neutral'}`}>{value.replaceAll('_', ' ')}</span>;
}

// Shows an API error: status and code, the API's message, the request that failed and every located detail.
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    return (
      <div className="error-box" role="alert">
        <strong>{title ?? 'The API refused this'}</strong>
        <p className="error-message">{error.message}</p>
        <p className="error-meta">
          {error.status ? `${error.status} ${error.code}` : error.code} · {error.method} {error.url}
          {error.requestId ? ` · request ${error.requestId}` : ''}
        </p>
        {error.diagnostics.length > 0 ? (
          <ul className="diagnostics">
            {error.diagnostics.map((d, i) => (
              <li key={i}>
                <code>{locationOf(d)}</code> {d.message}
              </li>
            ))}
          </ul>
        ) : error.details && typeof error.details === 'object' ? (
          <pre className="error-details">{JSON.stringify(error.details, null, 2)}</pre>
        ) : null}
      </div>
    );
  }
  return (
    <div className="error-box" role="alert">
      <strong>{title ?? 'Something went wrong'}</strong>
      <p className="error-message">
        {error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error)}
      </p>
    </div>
  );
}

// Where a diagnostic points: line:column for TOML, else the field or JSON path.
export function locationOf(d: {
  line?: number;
  column?: number;
  field?: string;
  path?: string;
  file?: string;
}): string {
  if (d.line !== undefined) return `line ${d.line}${d.column !== undefined ? `, column ${d.column}` : ''}`;
  return d.file ?? d.field ?? d.path ?? '$';
}

export function Loading({ what }: { what?: string }) {
  return (
    <p className="loading" role="status">
      Loading{what ? ` ${what}` : ''}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** What a confirmed action says and does (the modal ConfirmButton and the inline ConfirmRow take the same). */
export interface ConfirmProps {
  /** The button that asks. */
  label: string;
  /** The question, e.g. "Revoke this token?". */
  title: string;
  /** What happens. */
  body: ReactNode;
  /** The confirming button (default: the label). */
  confirmLabel?: string;
  danger?: boolean;
  /** The action; a rejection is shown and the confirmation stays open. */
  onConfirm: () => Promise<unknown>;
  disabled?: boolean;
  className?: string;
}

// A modal confirmation (native <dialog>: focus moves in, Escape cancels); `onConfirm` may reject to show an error.
export function ConfirmButton({
  label,
  title,
  body,
  confirmLabel,
  danger,
  onConfirm,
  disabled,
  className,
}: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const {
    run: confirm,
    busy,
    error,
    setError,
  } = useAction(async () => {
    await onConfirm();
    ref.current?.close();
  });
  const id = useId();
  const open = () => {
    setError(null);
    ref.current?.showModal();
  };
  return (
    <>
      <button
        type="button"
        className={`${danger ? 'btn-danger' : 'btn-secondary'} ${className ?? ''}`}
        data-write
        onClick={open}
        disabled={disabled}
      >
        {label}
      </button>
      <dialog ref={ref} aria-labelledby={`${id}-t`} className="dialog">
        <h2 id={`${id}-t`}>{title}</h2>
        <div className="dialog-body">{body}</div>
        <ErrorBox error={error} />
        <div className="dialog-actions">
          <button type="button" className="btn-secondary" onClick={() => ref.current?.close()} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'btn-danger' : 'btn-primary'}
            onClick={() => void confirm()}
            disabled={busy}
          >
            {busy ? 'Working…' : (confirmLabel ?? label)}
          </button>
        </div>
      </dialog>
    </>
  );
}

// Copies text to the clipboard and says so.
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(null), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <button type="button" className="btn-secondary btn-small" onClick={() => void copy()}>
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy' : label}
    </button>
  );
}

// A date-time in the reader's locale, with the exact ISO value as a tooltip.
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const d = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}
    </time>
  );
}

// Time since a moment, e.g. "3 min ago".
export function ago(at: string | null | undefined, now = Date.now()): string {
  if (!at) return 'never';
  const s = Math.max(0, Math.round((now - new Date(at).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export function Mono({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <code className="mono" title={title}>
      {children}
    </code>
  );
}

// A shortened id/digest with the whole value as tooltip; `tail` keeps the end (paths, hook keys) instead.
export function Short({ value, n = 12, tail }: { value: string | null | undefined; n?: number; tail?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  if (value.length <= n + 1) return <Mono title={value}>{value}</Mono>;
  return <Mono title={value}>{tail ? `…${value.slice(-n)}` : `${value.slice(0, n)}…`}</Mono>;
}

export function Percent({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  return <>{(value * 100).toFixed(1)}%</>;
}

// "Load more" for keyset-paginated lists.
export function MoreButton({ hasMore, loading, onClick }: { hasMore: boolean; loading: boolean; onClick: () => void }) {
  if (!hasMore) return null;
  return (
    <div className="more">
      <button type="button" className="btn-secondary" onClick={onClick} disabled={loading}>
        {loading ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}
