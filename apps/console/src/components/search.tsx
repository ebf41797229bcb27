// The global search box: `/` or Ctrl+K focuses it; endpoints, groups, hooks, policies, versions and releases that
// match, grouped by kind, each a link (Tab/arrow keys move through them, Escape closes).
import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { queryKeys } from '../query-keys';
import { Link } from '../router';

// The text after the person stopped typing for `ms`.
function useDebounced(value: string, ms: number): string {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

function Group({ title, more, children }: { title: string; more: boolean; children: ReactNode[] }) {
  if (children.length === 0) return null;
  return (
    <li className="search-group">
      <h3>{title}</h3>
      <ul>{children}</ul>
      {more ? <p className="hint">More match: refine the text.</p> : null}
    </li>
  );
}

export function GlobalSearch() {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const q = useDebounced(text.trim(), 150);
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && e.target.closest('input, textarea, select, [contenteditable]');
      if ((e.key === '/' && !typing) || (e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey))) {
        e.preventDefault();
        input.current?.focus();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const res = useQuery({
    queryKey: queryKeys.search(q),
    queryFn: () => api.GET('/v1/search', { params: { query: { q, limit: 5 } } }),
    enabled: q.length > 0,
  });
  const close = () => setOpen(false);
  // Arrow keys move between the input and the result links.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      close();
      input.current?.focus();
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...(box.current?.querySelectorAll<HTMLElement>('.search-results a') ?? [])];
    const all = [input.current!, ...links];
    const at = all.indexOf(document.activeElement as HTMLElement);
    const next = all[Math.max(0, Math.min(all.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))];
    e.preventDefault();
    next?.focus();
  };
  const d = res.data;
  const empty =
    d && [d.endpoints, d.groups, d.hooks, d.policies, d.versions, d.releases].every((k) => k.items.length === 0);
  return (
    <div
      className="global-search"
      ref={box}
      role="search"
      onKeyDown={onKeyDown}
      onBlur={(e) => {
        if (!box.current?.contains(e.relatedTarget)) close();
      }}
    >
      <label htmlFor="global-search" className="sr-only">
        Search everything
      </label>
      <input
        id="global-search"
        ref={input}
        type="search"
        value={text}
        placeholder="Search  ( / )"
        autoComplete="off"
        aria-controls={open && q.length > 0 ? 'search-results' : undefined}
        aria-keyshortcuts="/ Control+K"
        onFocus={() => setOpen(true)}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
        }}
      />
      {open && q.length > 0 ? (
        <div id="search-results" className="search-results" aria-live="polite" onClick={close}>
          {res.isPending ? <p className="loading">Searching…</p> : null}
          {res.error ? <p className="error-message">Search failed.</p> : null}
          {empty ? <p className="empty">Nothing matches “{q}”.</p> : null}
          {d ? (
            <ul>
              <Group title="Endpoints" more={d.endpoints.more}>
                {d.endpoints.items.map((e) => (
                  <li key={e.id}>
                    <Link to={`/endpoints/${e.id}`}>{e.hostname}</Link> <span className="muted">{e.groupName}</span>
                  </li>
                ))}
              </Group>
              <Group title="Groups" more={d.groups.more}>
                {d.groups.items.map((g) => (
                  <li key={g.id}>
                    <Link to={`/groups/${g.id}`}>{g.name}</Link>
                  </li>
                ))}
              </Group>
              <Group title="Hooks" more={d.hooks.more}>
                {d.hooks.items.map((h) => (
                  <li key={h.hash}>
                    <Link to={`/inventory?hash=${encodeURIComponent(h.hash)}`} className="mono">
                      {h.command ?? h.hash.slice(0, 19)}
                    </Link>{' '}
                    <span className="muted">
                      {h.endpoints} endpoint{h.endpoints === 1 ? '' : 's'} ·{' '}
                      <Link to={`/hook-runs?hookHash=${encodeURIComponent(h.hash)}`}>runs</Link>
                    </span>
                  </li>
                ))}
              </Group>
              <Group title="Policies" more={d.policies.more}>
                {d.policies.items.map((p) => (
                  <li key={p.id}>
                    <Link to={`/policies/${p.id}`}>{p.name}</Link>{' '}
                    <span className="muted">latest v{p.latestVersion}</span>
                  </li>
                ))}
              </Group>
              <Group title="Policy versions" more={d.versions.more}>
                {d.versions.items.map((v) => (
                  <li key={`${v.policyId}-${v.number}`}>
                    <Link to={`/policies/${v.policyId}`}>
                      {v.policyName} v{v.number}
                    </Link>{' '}
                    <span className="muted">{v.message}</span>
                  </li>
                ))}
              </Group>
              <Group title="Releases" more={d.releases.more}>
                {d.releases.items.map((r) => (
                  <li key={r.id}>
                    <Link to={`/releases/${r.id}`}>
                      {r.groupName} r{r.revision}
                    </Link>{' '}
                    <span className="muted">{r.status}</span>
                  </li>
                ))}
              </Group>
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
