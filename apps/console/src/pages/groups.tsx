// Groups: enrollments pending approval (duplicate machine ids), every group with its endpoint count; admins create
// groups and decide on pending enrollments here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, nextCursorOf } from '../api/client';
import { Card, ErrorBox, PageHeader, When } from '../components/ui';
import { useAction } from '../components/use-action';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { PendingApproval } from './admission-parts';
import { FilterBar, type FilterField, filterValues } from '../components/filter-bar';
import { QueryList } from '../components/list';
import { GROUP_FILTERS } from '../filters';
import { queryKeys } from '../query-keys';

function CreateGroup() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { run, busy, error } = useAction(async () => {
    const g = await api.POST('/v1/groups', { body: { name: name.trim(), description } });
    await queryClient.invalidateQueries({ queryKey: queryKeys.groups.all() });
    navigate(`/groups/${g.id}`);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  return (
    <form onSubmit={submit} className="form-grid" aria-label="Create a group">
      <label htmlFor="group-name">Name</label>
      <input id="group-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="group-description">Description</label>
      <input
        id="group-description"
        maxLength={2000}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <div className="form-span">
        <ErrorBox error={error} />
        <button type="submit" className="btn-primary" data-write disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create group'}
        </button>
      </div>
    </form>
  );
}

// How many live endpoints (admitted, not revoked) each group has (first 2000 endpoints).
async function endpointCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await api.GET('/v1/endpoints', { params: { query: { limit: 200, cursor } } });
    for (const e of page.items) if (e.inFleet) counts.set(e.groupId, (counts.get(e.groupId) ?? 0) + 1);
    const next = nextCursorOf(page);
    if (!next) break;
    cursor = next;
  }
  return counts;
}

/** The groups list's filter fields (GROUP_FILTERS). */
const FIELDS = [
  { key: 'namePrefix', label: 'Starts with', kind: GROUP_FILTERS.namePrefix, placeholder: 'name prefix' },
] as const satisfies ReadonlyArray<FilterField & { key: keyof typeof GROUP_FILTERS }>;

export default function Groups() {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const filter = filterValues(FIELDS, query);
  const groups = useQuery({
    queryKey: queryKeys.groups.list({ ...filter, limit: 200 }),
    queryFn: () => api.GET('/v1/groups', { params: { query: { ...filter, limit: 200 } } }),
  });
  const counts = useQuery({ queryKey: queryKeys.endpoints.counts(), queryFn: endpointCounts });
  return (
    <>
      <PageHeader
        title="Groups & endpoints"
        subtitle="Endpoints enroll into a group and receive its current release."
      />
      <div className="grid-2">
        <PendingApproval />
        <Card title="Groups" className={canWrite ? undefined : 'span-2'}>
          <FilterBar fields={FIELDS} path="/groups" label="Group filters" />
          <QueryList
            query={groups}
            empty="No groups."
            rowKey={(g) => g.id}
            columns={[
              {
                header: 'Name',
                cell: (g) => (
                  <>
                    <Link to={`/groups/${g.id}`}>{g.name}</Link>{' '}
                    {g.isDefault ? <span className="chip">default</span> : null}
                  </>
                ),
              },
              { header: 'Description', className: 'muted', cell: (g) => g.description || '—' },
              { header: 'Endpoints', cell: (g) => (counts.data ? (counts.data.get(g.id) ?? 0) : '…') },
              { header: 'Created', cell: (g) => <When at={g.createdAt} /> },
            ]}
          />
        </Card>
        {canWrite ? (
          <Card title="New group">
            <CreateGroup />
          </Card>
        ) : null}
      </div>
    </>
  );
}
