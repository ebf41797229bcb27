// Hook inventory: the report schema, collection on the endpoint, and the release impact preview.
export { INVENTORY_COMMAND_MODES, type InventoryCommandMode } from './vocabulary';
export {
  inventoryDocumentSchema,
  type InventoryDocument,
  inventoryHookSchema,
  type InventoryHook,
  MAX_INVENTORY_BYTES,
  MAX_INVENTORY_HOOKS,
} from './schema';
export { collectInventory, type CollectOptions, inventoryDigest, type InventoryHome, programOf } from './collect';
export {
  type EndpointImpact,
  inventorySummary,
  type InventorySummary,
  missingManagedScripts,
  type OutdatedAgent,
  outdatedAgents,
  type PreviewEndpoint,
  type PreviewOptions,
  previewRelease,
  releaseCanSuppress,
  type ReleasePreview,
} from './preview';
