// Reports the endpoint's hook inventory: on start, when its content digest changes (checked every interval), and
// at least every `maxIntervalMs`; gzip, bounded, backing off on errors.
import { gzipSync } from 'node:zlib';
import {
  collectInventory,
  type InventoryDocument,
  type InventoryHome,
  MAX_INVENTORY_BYTES,
} from '@hookwarden/hook-core';
import { ApiHttpError, type ApiClient } from '../client/api-client';
import { Backoff } from '../client/backoff';
import { log } from '../log';
import { requirementsPathFor } from '../materialize/layer';
import { readCaptureSettings } from '../spool/capture-settings';
import { readAgentState } from '../state/agent-state';

export interface InventoryReporterOptions {
  client: ApiClient;
  stateDir: string;
  root: string;
  homes: InventoryHome[];
  /** How often the digest is recomputed (default 60 s). */
  checkIntervalMs?: number;
  /** Longest time between two reports even without a change (default 60 min). */
  maxIntervalMs?: number;
}

/** The media type of inventory uploads. */
export const INVENTORY_MEDIA_TYPE = 'application/vnd.hookwarden.inventory+json';

// Collects the inventory as the group's capture settings allow.
export async function collectEndpointInventory(
  stateDir: string,
  root: string,
  homes: InventoryHome[],
): Promise<InventoryDocument> {
  const settings = await readCaptureSettings(stateDir);
  const state = await readAgentState(stateDir);
  return collectInventory({
    homes,
    requirementsPath: requirementsPathFor(root),
    commandMode: settings.inventoryCommands,
    redact: { redactPatterns: settings.redactPatterns, useDefaultRedact: settings.useDefaultRedact },
    policyRevision: state.appliedRevision,
  });
}

// Uploads one inventory (gzip JSON); throws on refusal.
export async function uploadInventory(client: ApiClient, doc: InventoryDocument): Promise<{ changed: boolean }> {
  // The API bounds the inflated document: check the JSON itself, not its gzip size.
  const json = Buffer.from(JSON.stringify(doc));
  if (json.length > MAX_INVENTORY_BYTES) {
    throw new Error(`inventory of ${json.length} bytes exceeds the ${MAX_INVENTORY_BYTES}-byte upload bound`);
  }
  const body = gzipSync(json);
  return client.json<{ changed: boolean }>('POST', '/v1/agent/inventory', {
    body,
    headers: { 'content-type': INVENTORY_MEDIA_TYPE, 'content-encoding': 'gzip' },
  });
}

export class InventoryReporter {
  private stopped = false;
  private wake: (() => void) | null = null;
  private lastDigest: string | null = null;
  private lastSentAt = 0;
  private readonly backoff = new Backoff(2000, 15 * 60_000);

  constructor(private readonly options: InventoryReporterOptions) {}

  // One round: collect, and upload when changed or due; returns whether it uploaded.
  async round(now = Date.now()): Promise<boolean> {
    const doc = await collectEndpointInventory(this.options.stateDir, this.options.root, this.options.homes);
    const due = now - this.lastSentAt >= (this.options.maxIntervalMs ?? 3_600_000);
    if (doc.digest === this.lastDigest && !due) return false;
    await uploadInventory(this.options.client, doc);
    this.lastDigest = doc.digest;
    this.lastSentAt = now;
    return true;
  }

  // Runs rounds until stop(), backing off after failures.
  async run(): Promise<void> {
    while (!this.stopped) {
      let delay = this.options.checkIntervalMs ?? 60_000;
      try {
        if (await this.round()) log('info', 'inventory reported', { digest: this.lastDigest });
        this.backoff.reset();
      } catch (err) {
        const retryAfter = err instanceof ApiHttpError ? err.retryAfterMs : null;
        delay = Math.max(delay, this.backoff.next(retryAfter));
        log('warn', 'inventory report failed', { error: (err as Error).message.slice(0, 500), retryInMs: delay });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  // Stops the loop.
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}
