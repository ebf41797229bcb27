// The hook inventory an agent reports for its endpoint: the contract between agent (collect) and API (store, query,
// preview). Bounded: at most MAX_INVENTORY_HOOKS hooks, every string capped.
import { z } from 'zod';
import { HOOK_EVENTS } from '../types';
import { INVENTORY_COMMAND_MODES, INVENTORY_LAYERS, INVENTORY_TRUST } from './vocabulary';

export const MAX_INVENTORY_HOOKS = 5000;
export const MAX_INVENTORY_SKIPPED = 2000;
export const MAX_INVENTORY_WARNINGS = 500;
/** Largest inventory upload after gzip inflation. */
export const MAX_INVENTORY_BYTES = 8 * 1024 * 1024;

const text = (max: number) => z.string().max(max);

/** One discovered hook as inventoried. */
export const inventoryHookSchema = z.object({
  user: text(256).describe('OS user whose ZeroTwo home holds the hook (empty for machine-wide layers)'),
  layer: z.enum(INVENTORY_LAYERS),
  event: z.enum(HOOK_EVENTS),
  matcher: text(2000).nullable(),
  key: text(4096),
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  trust: z.enum(INVENTORY_TRUST),
  managed: z.boolean(),
  plugin: text(256).nullable(),
  /** Project root for project-layer hooks. */
  project: text(4096).nullable(),
  /** What the engine does with it under the managed policy in force. */
  fate: z.enum(['run', 'skipped']),
  skipReason: text(500).nullable(),
  /** sha256 of the command text (always, unless the mode is `none`). */
  commandHash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .nullable(),
  /** The command's first word (modes `program` and `verbatim`). */
  program: text(512).nullable(),
  /** The command, redacted (mode `verbatim` only). */
  command: text(8192).nullable(),
});
export type InventoryHook = z.infer<typeof inventoryHookSchema>;

export const inventorySkippedSchema = z.object({
  user: text(256),
  layer: z.enum(INVENTORY_LAYERS),
  path: text(4096),
  reason: text(1000),
});
export type InventorySkipped = z.infer<typeof inventorySkippedSchema>;

export const inventoryWarningSchema = z.object({
  user: text(256),
  code: text(100),
  message: text(2000),
  file: text(4096).nullable(),
});
export type InventoryWarning = z.infer<typeof inventoryWarningSchema>;

/** The whole inventory of one endpoint. */
export const inventoryDocumentSchema = z.object({
  schema: z.literal('hookwarden.inventory/1'),
  collectedAt: z.iso.datetime({ offset: true }),
  commandMode: z.enum(INVENTORY_COMMAND_MODES),
  /** The managed policy revision applied on the endpoint when collected (null before the first apply). */
  policyRevision: z.number().int().min(0).nullable(),
  hooksEnabled: z.boolean(),
  allowManagedHooksOnly: z.boolean(),
  users: z.array(z.object({ user: text(256), home: text(4096), projects: z.number().int().min(0) })).max(10_000),
  hooks: z.array(inventoryHookSchema).max(MAX_INVENTORY_HOOKS),
  skippedSources: z.array(inventorySkippedSchema).max(MAX_INVENTORY_SKIPPED),
  warnings: z.array(inventoryWarningSchema).max(MAX_INVENTORY_WARNINGS),
  /** sha256 of the canonical document without `collectedAt` (what changed detection compares). */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type InventoryDocument = z.infer<typeof inventoryDocumentSchema>;
