// The release impact preview of the release form (GET /v1/groups/:id/release-preview): what the chosen version would
// suppress per layer and on how many endpoints, endpoints turning hooks off, missing managed scripts, unknown impact;
// and, when the API requires it, the acknowledgement that the start request names by the preview's digest.
import type { Schemas } from '../api/client';
import { Badge } from '../components/ui';
import { ackSentence } from '../inventory';
import { Link } from '../router';

type Preview = Schemas['ReleasePreviewDto'];

/** Endpoints listed per section before "and N more". */
const LIST = 20;

// "a, b and 3 more" as links to the endpoint pages.
function EndpointList({ items }: { items: Array<{ endpointId: string; hostname: string; note?: string }> }) {
  return (
    <ul className="key-list">
      {items.slice(0, LIST).map((e) => (
        <li key={e.endpointId}>
          <Link to={`/endpoints/${e.endpointId}`}>{e.hostname}</Link>
          {e.note ? <span className="muted"> · {e.note}</span> : null}
        </li>
      ))}
      {items.length > LIST ? <li className="muted">and {items.length - LIST} more</li> : null}
    </ul>
  );
}

export function PreviewPanel({
  preview,
  acked,
  onAck,
  changed,
}: {
  preview: Preview;
  acked: boolean;
  onAck: (yes: boolean) => void;
  /** The API refused the start because the preview changed since it was acknowledged. */
  changed: boolean;
}) {
  const s = preview.suppressed;
  const affected = preview.perEndpoint.filter((e) => !e.unknown && (e.hooksTurnedOff || e.suppressedKeys.length > 0));
  return (
    <section className="preview" aria-label="Release impact preview" data-testid="release-preview">
      <h3>Impact preview</h3>
      <p>
        {preview.endpoints.total} endpoint{preview.endpoints.total === 1 ? '' : 's'} in the group:{' '}
        {preview.endpoints.known} with a recent inventory, {preview.endpoints.unknown} unknown.
      </p>
      {s.total > 0 ? (
        <table className="compact" data-testid="preview-suppressed">
          <caption className="sr-only">Running hooks allow_managed_hooks_only would suppress</caption>
          <thead>
            <tr>
              <th scope="col">Suppressed</th>
              <th scope="col">Hooks</th>
            </tr>
          </thead>
          <tbody>
            {(['user', 'project', 'plugin', 'session'] as const).map((l) => (
              <tr key={l} data-layer={l}>
                <th scope="row">{l}</th>
                <td>{s[l]}</td>
              </tr>
            ))}
            <tr data-layer="total">
              <th scope="row">total</th>
              <td>
                <strong>{s.total}</strong> on {s.endpoints} endpoint{s.endpoints === 1 ? '' : 's'}
              </td>
            </tr>
          </tbody>
        </table>
      ) : preview.impactUnknown && preview.endpoints.known === 0 ? null : (
        <p className="ok-line">
          No running user, project, session or plugin hook is suppressed
          {preview.impactUnknown ? ` on the ${preview.endpoints.known} with a recent inventory` : ''}.
        </p>
      )}
      {preview.impactUnknown ? (
        <p className="notice" data-testid="preview-impact-unknown">
          <Badge value="impact unknown" tone="warn" />{' '}
          {preview.endpoints.known === 0
            ? `None of the ${preview.endpoints.unknown} endpoints has reported a recent inventory: what this release suppresses there is unknown, not none.`
            : `On ${preview.endpoints.unknown} endpoint${preview.endpoints.unknown === 1 ? '' : 's'} without a recent inventory the impact is unknown, not none.`}
        </p>
      ) : null}
      {preview.hooksTurnedOff.length > 0 ? (
        <>
          <h3>
            <Badge value="hooks turned off" tone="bad" /> on {preview.hooksTurnedOff.length} endpoint
            {preview.hooksTurnedOff.length === 1 ? '' : 's'}
          </h3>
          <EndpointList items={preview.hooksTurnedOff} />
        </>
      ) : null}
      {preview.missingManagedScripts.length > 0 ? (
        <>
          <h3>
            <Badge value="missing managed scripts" tone="warn" />
          </h3>
          <p className="hint">Referenced under managed_dir by the version's commands, but not shipped with it:</p>
          <ul className="key-list">
            {preview.missingManagedScripts.slice(0, LIST).map((m) => (
              <li key={m}>
                <code>{m}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {preview.unknownImpact.length > 0 ? (
        <>
          <h3>
            <Badge value="unknown impact" tone="warn" /> {preview.unknownImpact.length} endpoint
            {preview.unknownImpact.length === 1 ? '' : 's'}
          </h3>
          <EndpointList
            items={preview.unknownImpact.map((u) => ({
              ...u,
              note: u.inventoryAt ? `inventory from ${new Date(u.inventoryAt).toLocaleString()}` : 'no inventory',
            }))}
          />
        </>
      ) : null}
      {preview.agents.outdated.length > 0 ? (
        <>
          <h3>
            <Badge value="older agents" tone="warn" /> {preview.agents.outdated.length} endpoint
            {preview.agents.outdated.length === 1 ? '' : 's'}
          </h3>
          <p className="hint">
            This version needs contract {preview.agents.requiredContract}; these agents understand an older one.
          </p>
          <EndpointList items={preview.agents.outdated.map((o) => ({ ...o, note: o.reason }))} />
        </>
      ) : null}
      {affected.length > 0 ? (
        <details>
          <summary>Per endpoint ({affected.length})</summary>
          <ul className="key-list">
            {affected.slice(0, LIST).map((e) => (
              <li key={e.endpointId}>
                <Link to={`/endpoints/${e.endpointId}`}>{e.hostname}</Link>
                {e.hooksTurnedOff ? ' · hooks turned off' : ''}
                {e.suppressedKeys.length > 0 ? (
                  <ul>
                    {e.suppressedKeys.slice(0, LIST).map((k) => (
                      <li key={k}>
                        <code>{k}</code>
                      </li>
                    ))}
                    {e.suppressedKeys.length > LIST ? (
                      <li className="muted">and {e.suppressedKeys.length - LIST} more</li>
                    ) : null}
                  </ul>
                ) : null}
              </li>
            ))}
            {affected.length > LIST ? <li className="muted">and {affected.length - LIST} more endpoints</li> : null}
          </ul>
        </details>
      ) : null}
      {preview.requiresAck ? (
        <>
          {changed ? (
            <p className="notice" role="alert">
              The impact changed since you reviewed it (an endpoint reported a new inventory): review it again.
            </p>
          ) : null}
          <label className="ack">
            <input type="checkbox" checked={acked} onChange={(e) => onAck(e.target.checked)} data-write />
            <span>{ackSentence(preview)}</span>
          </label>
        </>
      ) : null}
    </section>
  );
}
