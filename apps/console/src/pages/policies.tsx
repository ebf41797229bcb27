// Policies: every policy with its group and latest version; admins create one here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { Card, Empty, ErrorBox, Loading, PageHeader, When } from '../components/ui';
import { Link, navigate } from '../router';
import { useCanWrite } from '../session';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';

function CreatePolicy({ groups }: { groups: Array<{ id: string; name: string }> }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [groupId, setGroupId] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const p = await api.POST('/v1/policies', {
        body: { name: name.trim(), description, ...(groupId ? { groupId } : {}) },
      });
      await queryClient.invalidateQueries({ queryKey: queryKeys.policies.all() });
      navigate(`/policies/${p.id}/new`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="form-grid" aria-label="Create a policy">
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

export default function Policies() {
  const canWrite = useCanWrite();
  const policies = useQuery({
    queryKey: queryKeys.policies.all(),
    queryFn: () => api.GET('/v1/policies', { params: { query: { limit: 200 } } }),
  });
  const groups = useQuery(groupsQuery);
  const groupName = new Map(groups.data?.items.map((g) => [g.id, g.name]) ?? []);
  return (
    <>
      <PageHeader title="Policies" subtitle="Managed requirements.toml and scripts, versioned and immutable." />
      <div className="grid-2">
        <Card title="Policies" className={canWrite ? undefined : 'span-2'}>
          {policies.isPending ? <Loading /> : null}
          <ErrorBox error={policies.error} />
          {policies.data && policies.data.items.length === 0 ? <Empty>No policy yet.</Empty> : null}
          {policies.data && policies.data.items.length > 0 ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Group</th>
                  <th scope="col">Latest version</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {policies.data.items.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <Link to={`/policies/${p.id}`}>{p.name}</Link>
                      {p.description ? <div className="muted small">{p.description}</div> : null}
                    </td>
                    <td>
                      <Link to={`/groups/${p.groupId}`}>{groupName.get(p.groupId) ?? 'group'}</Link>
                    </td>
                    <td>{p.latestVersion === 0 ? <span className="muted">none</span> : `v${p.latestVersion}`}</td>
                    <td>
                      <When at={p.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
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
