// Policies: every policy with its group and latest version; admins create one here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { Card, ErrorBox, PageHeader, When } from '../components/ui';
import { Link, navigate, useLocation } from '../router';
import { useCanWrite } from '../session';
import { FilterBar, type FilterField, filterValues } from '../components/filter-bar';
import { QueryList } from '../components/list';
import { useAction } from '../components/use-action';
import { POLICY_FILTERS } from '../filters';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';

function CreatePolicy({ groups }: { groups: Array<{ id: string; name: string }> }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [groupId, setGroupId] = useState('');
  const [description, setDescription] = useState('');
  const { run, busy, error } = useAction(async () => {
    const p = await api.POST('/v1/policies', {
      body: { name: name.trim(), description, ...(groupId ? { groupId } : {}) },
    });
    await queryClient.invalidateQueries({ queryKey: queryKeys.policies.all() });
    navigate(`/policies/${p.id}/new`);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  return (
    <form onSubmit={submit} className="form-grid" aria-label="Create a policy">
      <label htmlFor="pol-name">Name</label>
      <input id="pol-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="pol-group">Group</label>
      <select id="pol-group" value={groupId} onChange={(e) => setGroupId(e.target.value)}>
        <option value="">default group</option>
        {groups.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
          </option>
        ))}
      </select>
      <label htmlFor="pol-description">Description</label>
      <input id="pol-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <div className="form-span">
        <ErrorBox error={error} />
        <button type="submit" className="btn-primary" data-write disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create policy'}
        </button>
      </div>
    </form>
  );
}

/** The policies list's filter fields (POLICY_FILTERS; labels unlike the create form's Name and Group). */
const FIELDS = [
  { key: 'namePrefix', label: 'Starts with', kind: POLICY_FILTERS.namePrefix, placeholder: 'name prefix' },
  { key: 'groupId', label: 'Assigned to', kind: POLICY_FILTERS.groupId },
] as const satisfies ReadonlyArray<FilterField & { key: keyof typeof POLICY_FILTERS }>;

export default function Policies() {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const filter = filterValues(FIELDS, query);
  const policies = useQuery({
    queryKey: queryKeys.policies.list({ ...filter, limit: 200 }),
    queryFn: () => api.GET('/v1/policies', { params: { query: { ...filter, limit: 200 } } }),
  });
  const groups = useQuery(groupsQuery);
  const groupName = new Map(groups.data?.items.map((g) => [g.id, g.name]) ?? []);
  return (
    <>
      <PageHeader title="Policies" subtitle="Managed requirements.toml and scripts, versioned and immutable." />
      <div className="grid-2">
        <Card title="Policies" className={canWrite ? undefined : 'span-2'}>
          <FilterBar fields={FIELDS} path="/policies" label="Policy filters" />
          <QueryList
            query={policies}
            empty={filter.namePrefix || filter.groupId ? 'No policy matches.' : 'No policy yet.'}
            rowKey={(p) => p.id}
            columns={[
              {
                header: 'Name',
                cell: (p) => (
                  <>
                    <Link to={`/policies/${p.id}`}>{p.name}</Link>
                    {p.description ? <div className="muted small">{p.description}</div> : null}
                  </>
                ),
              },
              {
                header: 'Group',
                cell: (p) => <Link to={`/groups/${p.groupId}`}>{groupName.get(p.groupId) ?? 'group'}</Link>,
              },
              {
                header: 'Latest version',
                cell: (p) => (p.latestVersion === 0 ? <span className="muted">none</span> : `v${p.latestVersion}`),
              },
              { header: 'Updated', cell: (p) => <When at={p.updatedAt} /> },
            ]}
          />
        </Card>
        {canWrite ? (
          <Card title="New policy">
            <CreatePolicy groups={groups.data?.items ?? []} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
