// Pieces of the inventory views shared with the endpoint page: links into the Inventory page, the findings table and
// an endpoint's inventoried hooks.
import { useState } from 'react';
import type { Schemas } from '../api/client';
import { Badge, Short } from '../components/ui';
import type { InventoryHookRow } from '../inventory';
import { Link } from '../router';

export type InventoryTab = 'hooks' | 'plugins' | 'changes' | 'findings' | 'denied';

// The inventory path for a tab and query parameters (empty values left out).
export function inventoryPath(tab: InventoryTab, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  if (tab !== 'hooks') q.set('tab', tab);
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  return `/inventory${q.size ? `?${q.toString()}` : ''}`;
}

// Inventory findings (known-bad hooks, managed hooks missing), with their endpoint.
export function FindingsTable({ items }: { items: Schemas['InventoryFindingListDto']['items'] }) {
  return (
    <table data-testid="inventory-findings">
      <thead>
        <tr>
          <th scope="col">Finding</th>
          <th scope="col">Endpoint</th>
          <th scope="col">Hook</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {items.map((f, i) => (
          <tr key={`${f.kind}-${f.endpointId}-${f.hash ?? ''}-${f.key ?? ''}-${i}`}>
            <td>
              <Badge value={f.kind} />
            </td>
            <td>
              <Link to={`/endpoints/${f.endpointId}`}>{f.hostname}</Link>
            </td>
            <td>
              {f.hash ? (
                <Link to={inventoryPath('hooks', { hash: f.hash })} title={f.hash}>
                  {f.hash.slice(0, 19)}…
                </Link>
              ) : null}
              {f.key ? (
                <div className="small">
                  <Short value={f.key} n={40} tail />
                </div>
              ) : null}
            </td>
            <td>{f.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Rows shown before "Show all" (an endpoint may report up to 5,000 hooks). */
const FIRST_ROWS = 200;

// An endpoint's inventoried hooks: layer, user, event and matcher, trust, fate (with the skip reason), program.
export function InventoryHooksTable({ hooks }: { hooks: InventoryHookRow[] }) {
  const [all, setAll] = useState(false);
  const shown = all ? hooks : hooks.slice(0, FIRST_ROWS);
  return (
    <>
      <table data-testid="endpoint-inventory">
        <thead>
          <tr>
            <th scope="col">Layer</th>
            <th scope="col">User</th>
            <th scope="col">Event</th>
            <th scope="col">Matcher</th>
            <th scope="col">Trust</th>
            <th scope="col">Fate</th>
            <th scope="col">Program / plugin / project</th>
            <th scope="col">Definition</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((h) => (
            <tr key={`${h.user}\u0000${h.key}\u0000${h.hash}`} data-layer={h.layer}>
              <td>{h.layer}</td>
              <td>{h.user || <span className="muted">—</span>}</td>
              <td>{h.event}</td>
              <td>{h.matcher ? <code>{h.matcher}</code> : <span className="muted">any</span>}</td>
              <td>
                <Badge value={h.trust} />
              </td>
              <td>
                <Badge value={h.fate === 'run' ? 'runs' : h.fate} tone={h.fate === 'run' ? 'ok' : 'muted'} />
                {h.skipReason ? <div className="small muted">{h.skipReason.replaceAll('_', ' ')}</div> : null}
              </td>
              <td>
                {h.command ? <code>{h.command}</code> : h.program ? <code>{h.program}</code> : null}
                {h.plugin ? <div className="small">plugin {h.plugin}</div> : null}
                {h.project ? (
                  <div className="small">
                    project <Short value={h.project} n={40} tail />
                  </div>
                ) : null}
                {!h.command && !h.program && !h.plugin && !h.project ? <span className="muted">—</span> : null}
              </td>
              <td>
                <Link to={inventoryPath('hooks', { hash: h.hash })} title={h.hash}>
                  {h.hash.slice(0, 19)}…
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {hooks.length > shown.length ? (
        <div className="more">
          <button type="button" className="btn-secondary" onClick={() => setAll(true)}>
            Show all {hooks.length} hooks
          </button>
        </div>
      ) : null}
    </>
  );
}
