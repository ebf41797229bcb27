// Fleet hook inventory: hooks by definition hash with every filter of GET /v1/inventory/hooks (kept in the URL, keyset
// pages), plugins, recent changes, findings (known-bad hooks, missing managed hooks) and the deny list (admins add
// and remove hashes; auditors read).
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { api, nextCursorOf, type Schemas } from '../api/client';
import type { operations } from '@hookwarden/admin-client';
import {
  Badge,
  Card,
  CopyButton,
  Empty,
  ErrorBox,
  Loading,
  MoreButton,
  PageHeader,
  Short,
  When,
} from '../components/ui';
import { useAction } from '../components/use-action';
import {
  HOOK_FILTERS,
  type HookFilter,
  hookFiltersOf,
  INVENTORY_LAYERS,
  INVENTORY_TRUST,
  readChange,
} from '../inventory';
import { Link, navigate, useLocation } from '../router';
import { FindingsTable, inventoryPath, type InventoryTab as Tab } from './inventory-parts';
import { useCanWrite } from '../session';
import { ConfirmRow } from '../components/confirm-row';
import { QueryList } from '../components/list';
import { FilterBar, type FilterField, filterValues } from '../components/filter-bar';
import type { INVENTORY_SCOPE_FILTERS } from '../filters';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';

type HookQuery = NonNullable<operations['InventoryController_hooks']['parameters']['query']>;
type FleetHook = Schemas['FleetHookPageDto']['items'][number];

const TABS: ReadonlyArray<{ id: Tab; label: string }> = [
  { id: 'hooks', label: 'Hooks' },
  { id: 'plugins', label: 'Plugins' },
  { id: 'changes', label: 'Changes' },
  { id: 'findings', label: 'Findings' },
  { id: 'denied', label: 'Deny list' },
];

const LABELS: Record<HookFilter, string> = {
  groupId: 'Group',
  layer: 'Layer',
  trust: 'Trust',
  program: 'Program',
  commandContains: 'Command contains',
  plugin: 'Plugin',
  hash: 'Definition hash',
};
const HINTS: Partial<Record<HookFilter, string>> = {
  program: 'first word, exactly: curl',
  commandContains: 'where commands are captured',
  hash: 'sha256:…',
};

function useGroups() {
  return useQuery(groupsQuery);
}

// A group <select> ("any" first) for the tabs that filter by group.
function GroupSelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const groups = useGroups();
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">any</option>
      {groups.data?.items.map((g) => (
        <option key={g.id} value={g.id}>
          {g.name}
        </option>
      ))}
    </select>
  );
}

// Trust statuses with their endpoint counts, as badges.
function TrustCounts({ trust }: { trust: Record<string, number> }) {
  const entries = Object.entries(trust).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <span className="badge-list">
      {entries.map(([t, n]) => (
        <span key={t}>
          <Badge value={t} /> {n}
        </span>
      ))}
    </span>
  );
}

function HooksTab({ query }: { query: URLSearchParams }) {
  const applied = hookFiltersOf(query);
  const [draft, setDraft] = useState<Partial<Record<HookFilter, string>>>(applied);
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const hooks = useInfiniteQuery({
    queryKey: queryKeys.inventory.hooks(applied),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/inventory/hooks', {
        params: { query: { ...(applied as HookQuery), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    for (const k of HOOK_FILTERS) {
      const v = draft[k]?.trim();
      if (v) next[k] = v;
    }
    navigate(inventoryPath('hooks', next), true);
    void queryClient.invalidateQueries({ queryKey: queryKeys.inventory.all() });
  };
  const clear = () => {
    setDraft({});
    navigate(inventoryPath('hooks'), true);
  };
  const items: FleetHook[] = hooks.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <Card>
        <form className="filters" onSubmit={apply} aria-label="Hook filters">
          {HOOK_FILTERS.map((k) => {
            const id = `inv-${k}`;
            const value = draft[k] ?? '';
            const set = (v: string) => setDraft((d) => ({ ...d, [k]: v }));
            return (
              <div key={k} className="filter">
                <label htmlFor={id}>{LABELS[k]}</label>
                {k === 'groupId' ? (
                  <GroupSelect id={id} value={value} onChange={set} />
                ) : k === 'layer' || k === 'trust' ? (
                  <select id={id} value={value} onChange={(e) => set(e.target.value)}>
                    <option value="">any</option>
                    {(k === 'layer' ? INVENTORY_LAYERS : INVENTORY_TRUST).map((v) => (
                      <option key={v} value={v}>
                        {v}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input id={id} value={value} placeholder={HINTS[k]} onChange={(e) => set(e.target.value)} />
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
        title={
          hooks.data ? `${items.length}${hooks.hasNextPage ? '+' : ''} hook${items.length === 1 ? '' : 's'}` : 'Hooks'
        }
      >
        {hooks.isPending ? <Loading what="hooks" /> : null}
        <ErrorBox error={hooks.error} />
        {hooks.data && items.length === 0 ? <Empty>No inventoried hook matches these filters.</Empty> : null}
        {items.length > 0 ? (
          <table data-testid="fleet-hooks">
            <thead>
              <tr>
                <th scope="col">Definition</th>
                <th scope="col">Events</th>
                <th scope="col">Layers</th>
                <th scope="col">Program / plugin</th>
                <th scope="col">Endpoints</th>
                <th scope="col">Trust (endpoints)</th>
                <th scope="col">Runs on</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((h) => (
                <tr key={h.hash} data-hash={h.hash} className={h.denied ? 'row-bad' : undefined}>
                  <td>
                    <Short value={h.hash} n={19} /> {h.denied ? <Badge value="deny-listed" tone="bad" /> : null}
                    {h.command ? (
                      <div className="small">
                        <code>{h.command}</code>
                      </div>
                    ) : null}
                  </td>
                  <td>{h.events.join(', ')}</td>
                  <td>{h.layers.join(', ')}</td>
                  <td>
                    {h.programs.length ? <code>{h.programs.join(', ')}</code> : <span className="muted">—</span>}
                    {h.plugins.length ? (
                      <div className="small">
                        plugin{' '}
                        {h.plugins.map((p) => (
                          <Link key={p} to={inventoryPath('hooks', { plugin: p })}>
                            {p}
                          </Link>
                        ))}
                      </div>
                    ) : null}
                  </td>
                  <td data-col="endpoints">{h.endpoints}</td>
                  <td>
                    <TrustCounts trust={h.trust} />
                  </td>
                  <td>{h.running}</td>
                  <td className="cell-actions">
                    <Link to={`/hook-runs?hookHash=${encodeURIComponent(h.hash)}`}>Runs</Link>
                    <CopyButton text={h.hash} label="Copy hash" />
                    {canWrite && !h.denied ? (
                      <Link to={inventoryPath('denied', { deny: h.hash })} data-write>
                        Deny…
                      </Link>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <MoreButton
          hasMore={hooks.hasNextPage}
          loading={hooks.isFetchingNextPage}
          onClick={() => void hooks.fetchNextPage()}
        />
      </Card>
    </>
  );
}

/** The Plugins and Findings tabs' filter fields (INVENTORY_SCOPE_FILTERS). */
const SCOPE_FIELDS: readonly FilterField[] = [
  { key: 'groupId', label: 'Group', kind: 'group' },
  { key: 'endpointId', label: 'Endpoint', kind: 'text', placeholder: 'endpoint id' },
] satisfies ReadonlyArray<FilterField & { key: (typeof INVENTORY_SCOPE_FILTERS)[number] }>;

function PluginsTab({ query }: { query: URLSearchParams }) {
  const filter = filterValues(SCOPE_FIELDS, query);
  const groupId = filter.groupId ?? '';
  const plugins = useQuery({
    queryKey: queryKeys.inventory.plugins(filter),
    queryFn: () => api.GET('/v1/inventory/plugins', { params: { query: filter } }),
  });
  return (
    <Card title="Plugins across the fleet">
      <FilterBar fields={SCOPE_FIELDS} path="/inventory" label="Plugin filters" />
      {plugins.isPending ? <Loading what="plugins" /> : null}
      <ErrorBox error={plugins.error} />
      {plugins.data && plugins.data.items.length === 0 ? <Empty>No endpoint reports a plugin hook.</Empty> : null}
      {plugins.data && plugins.data.items.length > 0 ? (
        <table data-testid="fleet-plugins">
          <thead>
            <tr>
              <th scope="col">Plugin</th>
              <th scope="col">Endpoints</th>
              <th scope="col">Hooks</th>
              <th scope="col">Endpoints with untrusted or modified hooks</th>
            </tr>
          </thead>
          <tbody>
            {plugins.data.items.map((p) => (
              <tr key={p.plugin}>
                <td>
                  <Link to={inventoryPath('hooks', { plugin: p.plugin, groupId })}>{p.plugin}</Link>
                </td>
                <td>{p.endpoints}</td>
                <td>{p.hooks}</td>
                <td className={p.untrusted > 0 ? 'text-bad' : undefined}>{p.untrusted}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Card>
  );
}

// A datetime-local value (local time, minutes) for an ISO instant, and back.
const toLocal = (iso: string): string => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocal = (v: string): string => (v ? new Date(v).toISOString() : '');

function ChangesTab({ query }: { query: URLSearchParams }) {
  const endpointId = query.get('endpointId')?.trim() ?? '';
  const since = query.get('since')?.trim() ?? '';
  const [draft, setDraft] = useState({ endpointId, since });
  const filter = { ...(endpointId ? { endpointId } : {}), ...(since ? { since } : {}) };
  const changes = useInfiniteQuery({
    queryKey: queryKeys.inventory.changes(filter),
    queryFn: ({ pageParam }) =>
      api.GET('/v1/inventory/changes', {
        params: { query: { ...filter, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
      }),
    initialPageParam: '',
    getNextPageParam: (page) => nextCursorOf(page) ?? undefined,
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    navigate(inventoryPath('changes', { endpointId: draft.endpointId.trim(), since: draft.since }), true);
  };
  const items = changes.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card title="Inventory changes, newest first">
      <form className="filters" onSubmit={apply} aria-label="Change filters">
        <div className="filter">
          <label htmlFor="chg-endpoint">Endpoint id</label>
          <input
            id="chg-endpoint"
            value={draft.endpointId}
            onChange={(e) => setDraft((d) => ({ ...d, endpointId: e.target.value }))}
          />
        </div>
        <div className="filter">
          <label htmlFor="chg-since">Since</label>
          <input
            id="chg-since"
            type="datetime-local"
            value={toLocal(draft.since)}
            onChange={(e) => setDraft((d) => ({ ...d, since: fromLocal(e.target.value) }))}
          />
        </div>
        <div className="filter-actions">
          <button type="submit" className="btn-primary">
            Apply filters
          </button>
        </div>
      </form>
      {changes.isPending ? <Loading what="changes" /> : null}
      <ErrorBox error={changes.error} />
      {changes.data && items.length === 0 ? <Empty>No inventory change recorded.</Empty> : null}
      {items.length > 0 ? (
        <table data-testid="inventory-changes">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Added</th>
              <th scope="col">Removed</th>
              <th scope="col">Hooks</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => {
              const detail = readChange(c.changes);
              return (
                <tr key={c.id}>
                  <td>
                    <When at={c.at} />
                  </td>
                  <td>
                    <Link to={`/endpoints/${c.endpointId}`} title={c.endpointId}>
                      {c.hostname ?? `${c.endpointId.slice(0, 8)}…`}
                    </Link>
                  </td>
                  <td>{c.added}</td>
                  <td>{c.removed}</td>
                  <td>
                    {detail.added.length + detail.removed.length > 0 ? (
                      <details>
                        <summary>
                          {detail.added.length} added, {detail.removed.length} removed
                        </summary>
                        <ul className="key-list">
                          {detail.added.map((h) => (
                            <li key={`a${h.key}${h.hash}`}>
                              + {h.layer} <Short value={h.key} n={48} tail />
                            </li>
                          ))}
                          {detail.removed.map((h) => (
                            <li key={`r${h.key}${h.hash}`}>
                              − {h.layer} <Short value={h.key} n={48} tail />
                            </li>
                          ))}
                        </ul>
                      </details>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <MoreButton
        hasMore={changes.hasNextPage}
        loading={changes.isFetchingNextPage}
        onClick={() => void changes.fetchNextPage()}
      />
    </Card>
  );
}

function FindingsTab({ query }: { query: URLSearchParams }) {
  const filter = filterValues(SCOPE_FIELDS, query);
  const findings = useQuery({
    queryKey: queryKeys.inventory.findings(filter),
    queryFn: () => api.GET('/v1/inventory/findings', { params: { query: filter } }),
  });
  return (
    <Card title="Findings">
      <FilterBar fields={SCOPE_FIELDS} path="/inventory" label="Finding filters" />
      {findings.isPending ? <Loading what="findings" /> : null}
      <ErrorBox error={findings.error} />
      {findings.data && findings.data.items.length === 0 ? (
        <p className="ok-line">No known-bad hook and no missing managed hook.</p>
      ) : null}
      {findings.data && findings.data.items.length > 0 ? <FindingsTable items={findings.data.items} /> : null}
    </Card>
  );
}

function DeniedTab({ query }: { query: URLSearchParams }) {
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const denied = useQuery({
    queryKey: queryKeys.inventory.denied(),
    queryFn: () => api.GET('/v1/inventory/denied-hashes'),
  });
  const [hash, setHash] = useState(query.get('deny') ?? '');
  const [reason, setReason] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.inventory.all() });
  const { run, busy, error } = useAction(async () => {
    setAdded(null);
    const r = await api.POST('/v1/inventory/denied-hashes', { body: { hash: hash.trim(), reason: reason.trim() } });
    setAdded(r.hash);
    setHash('');
    setReason('');
    await refresh();
  });
  const add = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  return (
    <div className="grid-2">
      <Card title="Known-bad hook hashes" className={canWrite ? undefined : 'span-2'}>
        <p className="hint">Wherever an inventory carries one of these definition hashes, it becomes a finding.</p>
        <QueryList
          query={denied}
          what="deny list"
          empty="The deny list is empty."
          testId="denied-hashes"
          rowKey={(d) => d.hash}
          rowProps={(d) => ({ 'data-hash': d.hash })}
          columns={[
            {
              header: 'Hash',
              cell: (d) => (
                <Link to={inventoryPath('hooks', { hash: d.hash })} title={d.hash}>
                  {d.hash.slice(0, 19)}…
                </Link>
              ),
            },
            { header: 'Reason', cell: (d) => d.reason },
            {
              header: 'Added',
              cell: (d) => (
                <>
                  <When at={d.createdAt} />
                  {d.createdBy ? <div className="small muted">by {d.createdBy}</div> : null}
                </>
              ),
            },
            canWrite && {
              header: 'Actions',
              cell: (d) => (
                <ConfirmRow
                  label="Remove"
                  danger
                  title="Remove this hash from the deny list?"
                  body={
                    <p>
                      Hooks with <code>{d.hash}</code> stop being findings. The removal is audited.
                    </p>
                  }
                  onConfirm={async () => {
                    await api.DELETE('/v1/inventory/denied-hashes/{hash}', { params: { path: { hash: d.hash } } });
                    await refresh();
                  }}
                />
              ),
            },
          ]}
        />
      </Card>
      {canWrite ? (
        <Card title="Add a hash">
          <form className="form-grid" onSubmit={add} aria-label="Add a known-bad hash">
            <label htmlFor="deny-hash">Definition hash</label>
            <input
              id="deny-hash"
              className="mono"
              placeholder="sha256:…"
              value={hash}
              onChange={(e) => setHash(e.target.value)}
            />
            <label htmlFor="deny-reason">Reason</label>
            <textarea id="deny-reason" rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
            <div className="form-span">
              <ErrorBox error={error} />
              {added ? (
                <p className="ok-line" role="status">
                  Added <Short value={added} n={19} />: see the <Link to={inventoryPath('findings')}>findings</Link>.
                </p>
              ) : null}
              <button
                type="submit"
                className="btn-primary"
                data-write
                disabled={busy || !hash.trim() || !reason.trim()}
              >
                {busy ? 'Adding…' : 'Add to deny list'}
              </button>
            </div>
          </form>
        </Card>
      ) : null}
    </div>
  );
}

export default function Inventory() {
  const { query } = useLocation();
  const requested = query.get('tab');
  const tab: Tab = TABS.some((t) => t.id === requested) ? (requested as Tab) : 'hooks';
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const select = (t: Tab, focus = false) => {
    navigate(inventoryPath(t), true);
    if (focus) refs.current[t]?.focus();
  };
  // Arrow keys, Home and End move between tabs (WAI-ARIA tabs, automatic activation).
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const to =
      e.key === 'ArrowRight'
        ? (i + 1) % TABS.length
        : e.key === 'ArrowLeft'
          ? (i - 1 + TABS.length) % TABS.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? TABS.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    select(TABS[to]!.id, true);
  };
  return (
    <>
      <PageHeader
        title="Inventory"
        subtitle="Every hook the fleet's endpoints carry (user, project, plugin and managed), as their agents report it."
      />
      <div className="tabs" role="tablist" aria-label="Inventory views" onKeyDown={onKey}>
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="inventory-panel"
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div id="inventory-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'hooks' ? <HooksTab key={query.toString()} query={query} /> : null}
        {tab === 'plugins' ? <PluginsTab query={query} /> : null}
        {tab === 'changes' ? <ChangesTab key={query.toString()} query={query} /> : null}
        {tab === 'findings' ? <FindingsTab query={query} /> : null}
        {tab === 'denied' ? <DeniedTab key={query.get('deny') ?? ''} query={query} /> : null}
      </div>
    </>
  );
}
