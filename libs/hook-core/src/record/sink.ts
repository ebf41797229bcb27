// Run-record sinks: the pluggable interface and an in-memory sink.
import type { RunRecordDraft } from './schema';

/** Where run records go. A sink may sequence the drafts in place (add `seq`, `prevHash`, `gap`). */
export interface RunRecordSink {
  write(records: RunRecordDraft[]): Promise<void>;
}

/** Keeps records in memory (tests, embedding). */
export class MemorySink implements RunRecordSink {
  readonly records: RunRecordDraft[] = [];
  /** Append the records. */
  write(records: RunRecordDraft[]): Promise<void> {
    this.records.push(...records);
    return Promise.resolve();
  }
}
