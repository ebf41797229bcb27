// Groups: enrollments pending approval (duplicate machine ids), every group with its endpoint count; admins create
// groups and decide on pending enrollments here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, nextCursorOf } from '../api/client';
import { Card, Empty, ErrorBox, Loading, PageHeader, When } from '../components/ui';
import { useAction } from '../components/use-action';
import { Link, navigate } from '../router';
import { useCanWrite } from '../session';
import { inFleet } from '../domain';
import { PendingApproval } from './admission-parts';
import { queryKeys } from '../query-keys';
import { groupsQuery } from '../queries';

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
    for (const e of page.items) if (inFleet(e)) counts.set(e.groupId, (counts.get(e.groupId) ?? 0) + 1);
    const next = nextCursorOf(page);
    if (!next) break;
    cursor = next;
  }
  return counts;
}

export default function Groups() {
  const canWrite = useCanWrite();
  const groups = useQuery(groupsQuery);
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
          {groups.isPending ? <Loading /> : null}
          <ErrorBox error={groups.error} />
          {groups.data && groups.data.items.length === 0 ? <Empty>No groups.</Empty> : null}
          {groups.data ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Endpoints</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.items.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <Link to={`/groups/${g.id}`}>{g.name}</Link>{' '}
                      {g.isDefault ? <span className="chip">default</span> : null}
                    </td>
                    <td className="muted">{g.description || '—'}</td>
                    <td>{counts.data ? (counts.data.get(g.id) ?? 0) : '…'}</td>
                    <td>
                      <When at={g.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
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
