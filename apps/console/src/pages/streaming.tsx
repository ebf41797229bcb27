// Streaming: every destination with its state, per-stream lag, delivered count and last error, and the alerts the
// worker raised (firing first). Read-only here for everyone (admins manage destinations with the API or the CLI).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { queryKeys } from '../query-keys';
import { ALERT_STATES } from '../filters';
import { Badge, Card, Empty, ErrorBox, Loading, PageHeader, When } from '../components/ui';

const TONE: Record<string, string> = {
  active: 'ok',
  failing: 'warn',
  dead_letter: 'bad',
  firing: 'bad',
  resolved: 'ok',
};

// Seconds as a short lag text.
function lag(sec: number): string {
  if (sec === 0) return 'caught up';
  return sec < 120 ? `${sec.toFixed(1)} s` : `${Math.round(sec / 60)} min`;
}

export default function Streaming() {
  const [state, setState] = useState<(typeof ALERT_STATES)[number] | ''>('');
  const destinations = useQuery({
    queryKey: queryKeys.streaming.destinations(),
    queryFn: () => api.GET('/v1/streaming/destinations'),
    refetchInterval: 5000,
  });
  const alerts = useQuery({
    queryKey: queryKeys.streaming.alerts({ state, limit: 100 }),
    queryFn: () => api.GET('/v1/alerts', { params: { query: { limit: 100, ...(state ? { state } : {}) } } }),
    refetchInterval: 5000,
  });
  return (
    <>
      <PageHeader
        title="Streaming & alerts"
        subtitle="Where evidence is streamed (syslog, webhooks, Splunk HEC, OTLP), how far behind each destination is, and the alerts raised."
      />
      <Card title="Destinations">
        {destinations.isPending ? <Loading /> : null}
        <ErrorBox error={destinations.error} />
        {destinations.data && destinations.data.items.length === 0 ? (
          <Empty>No streaming destination yet (hookwarden streaming create -f body.json).</Empty>
        ) : null}
        {destinations.data && destinations.data.items.length > 0 ? (
          <table data-testid="destinations">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">State</th>
                <th scope="col">Lag</th>
                <th scope="col">Delivered</th>
                <th scope="col">Streams</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {destinations.data.items.map((d) => (
                <tr key={d.id} data-testid={`destination-${d.name}`}>
                  <td>{d.name}</td>
                  <td>{d.type}</td>
                  <td>
                    <Badge value={d.enabled ? d.state : `${d.state} (disabled)`} tone={TONE[d.state]} />
                  </td>
                  <td data-testid="lag">{lag(d.lagSec)}</td>
                  <td data-testid="delivered">{d.deliveredCount.toLocaleString()}</td>
                  <td>{d.cursors.map((c) => `${c.stream} (${lag(c.lagSec)})`).join(', ')}</td>
                  <td data-testid="last-error">
                    {d.lastError ? (
                      <>
                        <When at={d.lastErrorAt} /> {d.lastError}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Card>
      <Card title="Alerts">
        <label htmlFor="alert-state">State </label>
        <select
          id="alert-state"
          value={state}
          onChange={(e) => setState(e.target.value as (typeof ALERT_STATES)[number] | '')}
        >
          <option value="">all</option>
          {ALERT_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {alerts.isPending ? <Loading /> : null}
        <ErrorBox error={alerts.error} />
        {alerts.data && alerts.data.items.length === 0 ? <Empty>No alert.</Empty> : null}
        {alerts.data && alerts.data.items.length > 0 ? (
          <table data-testid="alerts">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">State</th>
                <th scope="col">Summary</th>
                <th scope="col">Fired</th>
                <th scope="col">Resolved</th>
              </tr>
            </thead>
            <tbody>
              {[...alerts.data.items]
                .sort((a, b) => Number(b.state === 'firing') - Number(a.state === 'firing'))
                .map((a) => (
                  <tr key={a.id} data-testid={`alert-${a.ruleName}`}>
                    <td>{a.ruleName}</td>
                    <td>
                      <Badge value={a.state} tone={TONE[a.state]} />
                    </td>
                    <td>{a.summary}</td>
                    <td>
                      <When at={a.firedAt} />
                    </td>
                    <td>{a.resolvedAt ? <When at={a.resolvedAt} /> : '—'}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        ) : null}
      </Card>
    </>
  );
}
