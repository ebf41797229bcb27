// Saved views of a list page: the person's own and the shared ones as links (the URL holds every filter), a form
// naming the current query (admins may share it), and deleting what one may delete.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { queryKeys } from '../query-keys';
import { Link } from '../router';
import { useSession } from '../session';
import { ErrorBox } from './ui';

type Kind = 'explorer' | 'endpoints';

// The console path of a saved query.
export function viewPath(path: string, query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `${path}?${q}` : path;
}

export function SavedViews({ kind, path, query }: { kind: Kind; path: string; query: Record<string, string> }) {
  const { session } = useSession();
  const admin = session?.role === 'admin';
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const views = useQuery({
    queryKey: queryKeys.savedViews.list(kind),
    queryFn: () => api.GET('/v1/saved-views', { params: { query: { kind } } }),
  });
  const save = useMutation({
    mutationFn: () => api.POST('/v1/saved-views', { body: { name: name.trim(), kind, query, shared } }),
    onSuccess: () => {
      setName('');
      setShared(false);
      void client.invalidateQueries({ queryKey: queryKeys.savedViews.all() });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE('/v1/saved-views/{id}', { params: { path: { id } } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.savedViews.all() }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) save.mutate();
  };
  const items = views.data?.items ?? [];
  return (
    <section className="saved-views" aria-label="Saved views">
      <span className="saved-views-label">Saved views</span>
      {items.length === 0 && views.data ? <span className="muted">none yet</span> : null}
      <ul className="saved-views-list">
        {items.map((v) => (
          <li key={v.id}>
            <Link to={viewPath(path, v.query)}>{v.name}</Link>
            {v.shared ? <span className="chip">shared</span> : null}
            {v.mine || (admin && v.shared) ? (
              <button
                type="button"
                className="btn-ghost btn-small"
                aria-label={`Delete saved view ${v.name}`}
                onClick={() => remove.mutate(v.id)}
              >
                ×
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <form className="saved-views-form" onSubmit={submit} aria-label="Save this view">
        <label htmlFor={`sv-${kind}`} className="sr-only">
          Name of this view
        </label>
        <input
          id={`sv-${kind}`}
          value={name}
          maxLength={100}
          placeholder="Name this view"
          onChange={(e) => setName(e.target.value)}
        />
        {admin ? (
          <label className="pick-option">
            <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} /> shared
          </label>
        ) : null}
        <button type="submit" className="btn-secondary btn-small" disabled={!name.trim() || save.isPending}>
          Save view
        </button>
      </form>
      <ErrorBox error={save.error ?? remove.error ?? views.error} />
    </section>
  );
}
