// `@hookwarden/hook-core/browser`: the part of the contract a browser needs, with no Node.js module anywhere in its
// imports (a test bundles it for the browser): canonical JSON (what the server signs) and the inventory's words and
// schema. The words and canonical JSON import no schema library, so a bundle that uses only them stays small.
export { canonicalJson } from './trust/canonical-json';
export { HOOK_EVENTS, type HookEvent } from './types';
export {
  INVENTORY_COMMAND_MODES,
  type InventoryCommandMode,
  INVENTORY_LAYERS,
  type InventoryLayer,
  INVENTORY_TRUST,
  type InventoryTrust,
} from './inventory/vocabulary';
export {
  inventoryDocumentSchema,
  type InventoryDocument,
  inventoryHookSchema,
  type InventoryHook,
  inventorySkippedSchema,
  type InventorySkipped,
  inventoryWarningSchema,
  type InventoryWarning,
  MAX_INVENTORY_HOOKS,
} from './inventory/schema';
