// The payloads of ingest: the queue job (a wake-up naming a staged upload) and a batch reduced to rows.
import type { JobPayload } from '../queues/jobs';
import type { IngestRow } from './ingest.parse';

export type { IngestRow };

/** The BullMQ job: which staged upload (hook_run_uploads) to store (the job table's schema). Redis never holds the
 * records themselves. */
export type IngestWakeData = JobPayload<'ingest-batch'>;

/** One batch ready to store. */
export interface IngestJobData {
  endpointId: string;
  groupId: string;
  receivedAt: string;
  /** Total records the endpoint's spool has dropped so far (cap reached), when it reported it. */
  droppedTotal: number | null;
  rows: IngestRow[];
}
