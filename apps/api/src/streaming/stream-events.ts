// What a stream delivers, as pure functions: the event of each source row (with its stable id, used by receivers to
// de-duplicate at-least-once delivery), its native or OCSF-shaped document, and the hook-run filter of a destination.
import type { HookRunFilter, StreamName } from './streaming.dto';

/** One event of a stream. `id` is stable across redeliveries and replays; `sequence` orders it in its stream. */
export interface StreamEvent {
  id: string;
  stream: StreamName;
  /** The event's position in its stream (decimal text: ordered per destination and stream). */
  sequence: string;
  /** When it happened (ISO 8601). */
  time: string;
  /** hook_run, audit, release, finding, alert.fired, alert.resolved */
  type: string;
  severity: 'info' | 'warning' | 'error';
  /** The endpoint it is about (hook runs, findings), for per-endpoint ordering downstream. */
  endpointId: string | null;
  data: Record<string, unknown>;
}

/** Version of the native event shape (in every native document). */
export const NATIVE_SCHEMA = 'hookwarden.event/1';

// The native JSON document of an event.
export function nativeDoc(e: StreamEvent): Record<string, unknown> {
  return {
    schema: NATIVE_SCHEMA,
    id: e.id,
    stream: e.stream,
    sequence: e.sequence,
    time: e.time,
    type: e.type,
    severity: e.severity,
    ...(e.endpointId ? { endpointId: e.endpointId } : {}),
    data: e.data,
  };
}

/** OCSF classes the events are shaped as (category, class, activity). */
const OCSF_CLASS: Record<string, { category: number; class: number; name: string; activity: number }> = {
  hook_run: { category: 1, class: 1007, name: 'Process Activity', activity: 1 },
  audit: { category: 3, class: 3004, name: 'Entity Management', activity: 99 },
  release: { category: 3, class: 3004, name: 'Entity Management', activity: 99 },
  finding: { category: 2, class: 2004, name: 'Detection Finding', activity: 1 },
  'alert.fired': { category: 2, class: 2004, name: 'Detection Finding', activity: 1 },
  'alert.resolved': { category: 2, class: 2004, name: 'Detection Finding', activity: 3 },
};
const OCSF_SEVERITY = { info: 1, warning: 3, error: 4 } as const;

// An OCSF-shaped document of an event (OCSF 1.3 attribute names; the Hookwarden fields are kept under `unmapped`).
export function ocsfDoc(e: StreamEvent): Record<string, unknown> {
  const c = OCSF_CLASS[e.type] ?? OCSF_CLASS.audit!;
  const d = e.data as Record<string, string | number | boolean | null | undefined>;
  const out: Record<string, unknown> = {
    category_uid: c.category,
    class_uid: c.class,
    class_name: c.name,
    activity_id: c.activity,
    type_uid: c.class * 100 + c.activity,
    severity_id: OCSF_SEVERITY[e.severity],
    time: Date.parse(e.time),
    message: ocsfMessage(e),
    metadata: {
      version: '1.3.0',
      uid: e.id,
      sequence: Number(e.sequence),
      log_name: e.stream,
      product: { name: 'Hookwarden', vendor_name: 'Hookwarden' },
    },
    unmapped: d,
  };
  if (e.endpointId) out.device = { uid: e.endpointId, ...(d.hostname ? { hostname: d.hostname } : {}) };
  if (e.type === 'hook_run') {
    const denied = d.decision === 'deny' || d.decision === 'block';
    out.status_id = d.status === 'ran' ? 1 : d.status === 'skipped' ? 99 : 2;
    out.disposition_id = denied ? 2 : 1;
    out.actor = { process: { name: d.hookKey, cmd_line: d.toolCommand ?? undefined } };
  }
  if (e.type === 'audit' || e.type === 'release') {
    out.actor = { user: { name: d.actorName, uid: d.actorId ?? undefined, type: d.role } };
    out.activity_name = d.action;
  }
  if (e.type.startsWith('alert.') || e.type === 'finding') {
    out.finding_info = { uid: String(d.alertId ?? d.findingId ?? e.id), title: ocsfMessage(e), types: [d.kind] };
    out.status_id = e.type === 'alert.resolved' ? 4 : 1;
  }
  return out;
}

// A one-line human summary of an event (OCSF message, syslog readers).
function ocsfMessage(e: StreamEvent): string {
  const d = e.data as Record<string, string | number | boolean | null | undefined>;
  switch (e.type) {
    case 'hook_run':
      return `hook ${String(d.hookKey)} ${String(d.status)} on ${String(d.event)}${d.decision ? ` (${String(d.decision)})` : ''}`;
    case 'finding':
      return `record-chain finding ${String(d.kind)}`;
    default:
      return String(d.summary ?? d.action ?? e.type);
  }
}

// The document of an event in a destination's format.
export function eventDoc(e: StreamEvent, format: 'native' | 'ocsf'): Record<string, unknown> {
  return format === 'ocsf' ? ocsfDoc(e) : nativeDoc(e);
}

// Severity of a hook run: a denial is a warning, a hook that failed or timed out an error.
export function hookRunSeverity(status: string, decision: string | null): StreamEvent['severity'] {
  if (status === 'failed' || status === 'timed_out') return 'error';
  if (decision === 'deny' || decision === 'block') return 'warning';
  return 'info';
}

/** The SQL conditions of a hook-run filter (column, values), for the stream's query. */
export function hookRunFilterConditions(f: HookRunFilter): Array<{ column: string; values: string[]; type: string }> {
  const out: Array<{ column: string; values: string[]; type: string }> = [];
  if (f.groups?.length) out.push({ column: 'group_id', values: f.groups, type: 'uuid' });
  if (f.events?.length) out.push({ column: 'event', values: f.events, type: 'text' });
  if (f.decisions?.length) out.push({ column: 'decision', values: f.decisions, type: 'text' });
  if (f.statuses?.length) out.push({ column: 'status', values: f.statuses, type: 'text' });
  return out;
}

/** Event-id forms: `hookrun:<endpointId>:<recordId>`, `audit:<seq>`, `finding:<id>`, `alert:<seq>`. */
export type ParsedEventId =
  | { stream: 'hookRuns'; endpointId: string; recordId: string }
  | { stream: 'auditLog'; seq: number }
  | { stream: 'findings'; id: string }
  | { stream: 'alerts'; seq: number };

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const HOOKRUN_ID = new RegExp(`^hookrun:(${UUID}):(${UUID})$`, 'i');
const FINDING_ID = new RegExp(`^finding:(${UUID})$`, 'i');

// Parses an event id (replay from an id); null when it is not one of the forms.
export function parseEventId(id: string): ParsedEventId | null {
  let m = HOOKRUN_ID.exec(id);
  if (m) return { stream: 'hookRuns', endpointId: m[1]!.toLowerCase(), recordId: m[2]!.toLowerCase() };
  m = /^(audit|alert):([1-9][0-9]{0,15})$/.exec(id);
  if (m) return m[1] === 'audit' ? { stream: 'auditLog', seq: Number(m[2]) } : { stream: 'alerts', seq: Number(m[2]) };
  m = FINDING_ID.exec(id);
  if (m) return { stream: 'findings', id: m[1]!.toLowerCase() };
  return null;
}
