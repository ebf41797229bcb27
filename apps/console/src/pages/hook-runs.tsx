// Hook-run explorer: every filter of GET /v1/hook-runs (kept in the URL), keyset pages, CSV/NDJSON export of the
// current filter (downloaded with the bearer header, never a token in a URL).
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
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
      <Card>
        <form className="filters" onSubmit={apply} aria-label="Filters">
          {FILTERS.map((f) => {
            const id = `f-${f.key}`;
            const value = draft[f.key] ?? '';
            const set = (v: string) => setDraft((d) => ({ ...d, [f.key]: v }));
            return (
              <div key={f.key} className="filter">
                <label htmlFor={id}>{f.label}</label>
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
        title={runs.data ? `${items.length}${runs.hasNextPage ? '+' : ''} run${items.length === 1 ? '' : 's'}` : 'Runs'}
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
