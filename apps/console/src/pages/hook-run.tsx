// One hook-run record in full: the indexed fields and the whole record as the endpoint uploaded it.
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../api/client';
import { Badge, Card, CopyButton, ErrorBox, Loading, PageHeader, Short, When } from '../components/ui';
import { Link, useLocation } from '../router';
import { queryKeys } from '../query-keys';

// A field as text (null when absent or empty; objects and arrays as JSON).
function val(x: unknown): string | null {
  if (x === null || x === undefined || x === '') return null;
  return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : JSON.stringify(x);
}

export default function HookRun({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  // Records are keyed by endpoint and id: the list links name the endpoint.
  const endpointId = useLocation().query.get('endpointId') ?? undefined;
  const q = useQuery({
    queryKey: queryKeys.hookRuns.one(id, endpointId),
    queryFn: () => api.GET('/v1/hook-runs/{id}', { params: { path: { id }, query: endpointId ? { endpointId } : {} } }),
  });
  if (q.isPending) return <Loading what="record" />;
  if (q.error) return <ErrorBox error={q.error} />;
  const r = q.data;
  const json = JSON.stringify(r.record, null, 2);
  const fields: Array<[string, ReactNode]> = [
    ['Event', r.event],
    ['Tool', val(r.toolName) ?? '—'],
    ['Status', <Badge key="s" value={r.status} />],
    ['Decision', <Badge key="d" value={val(r.decision)} />],
    ['Skip reason', val(r.skipReason) ?? '—'],
    ['Managed', r.managed ? 'yes' : 'no'],
    ['Hook key', <Short key="k" value={r.hookKey} n={56} tail />],
    ['Hook hash', <Short key="h" value={val(r.hookHash)} n={30} />],
    ['Started', <When key="st" at={r.startedAt} />],
    ['Received', <When key="rc" at={r.receivedAt} />],
    ['Duration', val(r.durationMs) ? `${val(r.durationMs)} ms` : '—'],
    ['Exit code', val(r.exitCode) ?? '—'],
    ['Signal', val(r.signal) ?? '—'],
    ['Timed out', r.timedOut ? 'yes' : 'no'],
    [
      'Endpoint',
      <Link key="e" to={`/endpoints/${r.endpointId}`}>
        {r.endpointId}
      </Link>,
    ],
    ['Sequence', String(r.seq)],
    ['Policy revision', val(r.policyRevision) ?? '—'],
    ['Policy digest', <Short key="pd" value={val(r.policyDigest)} n={30} />],
    ['Session / turn', `${val(r.sessionId) ?? '—'} / ${val(r.turnId) ?? '—'}`],
  ];
  return (
    <>
      <PageHeader
        title="Hook run"
        subtitle={<Short value={r.id} n={40} />}
        actions={<Link to={`/hook-runs?endpointId=${r.endpointId}`}>Runs of this endpoint</Link>}
      />
      <div className="grid-2">
        <Card title="Fields">
          <dl className="facts">
            {fields.map(([k, v]) => (
              <div key={k} className="fact">
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        </Card>
        <Card title="Record as uploaded" actions={<CopyButton text={json} label="Copy JSON" />}>
          <pre className="code-block" tabIndex={0} aria-label="Record JSON">
            {json}
          </pre>
        </Card>
      </div>
    </>
  );
}
