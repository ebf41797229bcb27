// The payload of one ingest job: one uploaded batch, already validated and reduced to columns + raw record text.
import type { HookRunColumns } from './run-record';

export interface IngestRow {
  c: HookRunColumns;
  /** The record as JSON text (stored as jsonb). */
  r: string;
}

export interface IngestJobData {
  endpointId: string;
  groupId: string;
  receivedAt: string;
  /** Total records the endpoint's spool has dropped so far (cap reached), when it reported it. */
  droppedTotal: number | null;
  rows: IngestRow[];
}
