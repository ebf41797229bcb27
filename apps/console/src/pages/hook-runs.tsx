// Hook-run explorer: every filter of GET /v1/hook-runs (kept in the URL), keyset pages, CSV/NDJSON export of the
// current filter (downloaded with the bearer header, never a token in a URL).
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, downloadExport, nextCursorOf } from '../api/client';
import type { operations } from '@hookwarden/admin-client';
import { Card, ErrorBox, Loading, MoreButton, PageHeader } from '../components/ui';
import { useAction } from '../components/use-action';
import { navigate, useLocation } from '../router';
import { PickList } from '../components/pick-list';
import { HOOK_RUN_FILTERS, type HookRunFilter, TOP_KINDS } from '../filters';
import { RunsTable, type TopKind, TopHooks } from './hook-runs-table';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';
import { SavedViews } from '../components/saved-views';

type RunQuery = NonNullable<operations['HookRunsController_list']['parameters']['query']>;
type FilterKey = HookRunFilter;

/** Every filter the API offers, in form order (filters.ts checks the list against the document). */
const FILTERS = HOOK_RUN_FILTERS;

// A datetime-local value (local time, minutes) for an ISO instant, and back.
const toLocal = (iso: string): string => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocal = (v: string): string => (v ? new Date(v).toISOString() : '');

// The filters set in the URL.
function filtersOf(query: URLSearchParams): Partial<Record<FilterKey, string>> {
  const out: Partial<Record<FilterKey, string>> = {};
  for (const f of FILTERS) {
    const v = query.get(f.key);
    if (v) out[f.key] = v;
  }
  return out;
}

export default function HookRuns() {
  const { query } = useLocation();
  const applied = filtersOf(query);
  const [draft, setDraft] = useState<Partial<Record<FilterKey, string>>>(applied);
  const key = JSON.stringify(applied);
  // A link to other filters (a drill-down, a saved view) shows them in the form too.
  useEffect(() => setDraft(JSON.parse(key) as Partial<Record<FilterKey, string>>), [key]);
  const [topKind, setTopKind] = useState<TopKind | ''>('failing');
  // The format of the export last started (the one running while the action is busy).
  const [exportFormat, setExportFormat] = useState<'csv' | 'ndjson'>('csv');
  const exportRuns = useAction(async (format: 'csv' | 'ndjson') => {
    setExportFormat(format);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    await downloadExport({ ...(applied as RunQuery), format }, `hook-runs-${stamp}.${format}`);
  });
  const exporting = exportRuns.busy ? exportFormat : null;
  const queryClient = useQueryClient();
  const groups = useQuery(groupsQuery);
  const runs = useInfiniteQuery({
    queryKey: queryKeys.hookRuns.list(applied),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/hook-runs', {
        params: { query: { ...(applied as RunQuery), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
  });
  // How many runs match (the stats of the same filters), so a drill-down shows the number it was reached from.
  const matching = useQuery({
    queryKey: queryKeys.hookRuns.stats({ ...applied, bucket: 'day' }),
    queryFn: () => api.GET('/v1/hook-runs/stats', { params: { query: { ...(applied as RunQuery), bucket: 'day' } } }),
  });
  const total = matching.data?.buckets.reduce((n, b) => n + b.total, 0);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const f of FILTERS) {
      const v = draft[f.key]?.trim();
      if (v) next.set(f.key, v);
    }
    navigate(`/hook-runs${next.size ? `?${next.toString()}` : ''}`, true);
    // The same filter again means "look for new runs".
    void queryClient.invalidateQueries({ queryKey: queryKeys.hookRuns.all() });
  };
  const clear = () => {
    setDraft({});
    navigate('/hook-runs', true);
  };
  const items = runs.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader
        title="Hook runs"
        subtitle="Every hook run recorded on the fleet's endpoints, newest first."
        actions={
          <>
            <button
              type="button"
              className="btn-secondary"
              onClick={() => void exportRuns.run('csv')}
              disabled={!!exporting}
            >
              {exporting === 'csv' ? 'Exporting…' : 'Export CSV'}
            </button>
            <button
              type="button"
              className="btn-secondary"
              onClick={() => void exportRuns.run('ndjson')}
              disabled={!!exporting}
            >
              {exporting === 'ndjson' ? 'Exporting…' : 'Export NDJSON'}
            </button>
          </>
        }
      />
      <ErrorBox error={exportRuns.error} title="Export failed" />
      <SavedViews kind="explorer" path="/hook-runs" query={applied} />
      <Card>
        <form className="filters" onSubmit={apply} aria-label="Filters">
          {FILTERS.map((f) => {
            const id = `f-${f.key}`;
            const value = draft[f.key] ?? '';
            const set = (v: string) => setDraft((d) => ({ ...d, [f.key]: v }));
            return (
              <div key={f.key} className="filter">
                {f.kind === 'pick' ? (
                  <span className="filter-label" id={`${id}-l`}>
                    {f.label}
                  </span>
                ) : (
                  <label htmlFor={id}>{f.label}</label>
                )}
                {f.kind === 'datetime' ? (
                  <input
                    id={id}
                    type="datetime-local"
                    value={toLocal(value)}
                    onChange={(e) => set(fromLocal(e.target.value))}
                  />
                ) : f.kind === 'bool' ? (
                  <select id={id} value={value} onChange={(e) => set(e.target.value)}>
                    <option value="">any</option>
                    <option value="true">managed only</option>
                    <option value="false">unmanaged only</option>
                  </select>
                ) : f.kind === 'pick' ? (
                  <fieldset id={id} className="pick" aria-label={f.label}>
                    {f.options.map((o) => {
                      const picked = value.split(',').filter(Boolean);
                      const on = picked.includes(o);
                      return (
                        <label key={o} className="pick-option">
                          <input
                            type="checkbox"
                            checked={on}
                            onChange={() => set((on ? picked.filter((x) => x !== o) : [...picked, o]).join(','))}
                          />
                          {o.replace('_', ' ')}
                        </label>
                      );
                    })}
                  </fieldset>
                ) : f.kind === 'group' ? (
                  <select id={id} value={value} onChange={(e) => set(e.target.value)}>
                    <option value="">any</option>
                    {groups.data?.items.map((g) => (
                      <option key={g.id} value={g.id}>
                        {g.name}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={id}
                    value={value}
                    placeholder={'hint' in f ? f.hint : undefined}
                    onChange={(e) => set(e.target.value)}
                  />
                )}
              </div>
            );
          })}
          <div className="filter-actions">
            <button type="submit" className="btn-primary">
              Apply filters
            </button>
            <button type="button" className="btn-ghost" onClick={clear}>
              Clear
            </button>
          </div>
        </form>
      </Card>
      <Card
        title="Top hooks of this filter"
        actions={
          <PickList
            id="top-kind"
            label="Ranking"
            value={topKind}
            options={TOP_KINDS}
            onChange={(v) => setTopKind(v || 'failing')}
          />
        }
      >
        <TopHooks kind={topKind || 'failing'} filter={applied as RunQuery} limit={10} />
      </Card>
      <Card
        title={
          total !== undefined
            ? `${total} matching run${total === 1 ? '' : 's'}${applied.from || applied.to ? '' : ' in the last 24 h'}`
            : runs.data
              ? `${items.length}${runs.hasNextPage ? '+' : ''} run${items.length === 1 ? '' : 's'}`
              : 'Runs'
        }
        actions={<span data-testid="match-count">{total ?? ''}</span>}
      >
        {runs.isPending ? <Loading /> : null}
        <ErrorBox error={runs.error} />
        {runs.data ? <RunsTable items={items} /> : null}
        <MoreButton
          hasMore={runs.hasNextPage}
          loading={runs.isFetchingNextPage}
          onClick={() => void runs.fetchNextPage()}
        />
      </Card>
    </>
  );
}
