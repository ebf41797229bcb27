// The words of the hook inventory (command modes, layers, trust statuses): plain constants, no schema library, so a
// browser can take them without the schema.
/** What an inventory says about commands (the group's capture settings choose). */
export const INVENTORY_COMMAND_MODES = ['verbatim', 'program', 'hash', 'none'] as const;
export type InventoryCommandMode = (typeof INVENTORY_COMMAND_MODES)[number];

/** The configuration layers a hook can come from. */
export const INVENTORY_LAYERS = ['system', 'user', 'project', 'session', 'plugin', 'managed'] as const;
export type InventoryLayer = (typeof INVENTORY_LAYERS)[number];
/** The trust statuses an inventoried hook can have. */
export const INVENTORY_TRUST = ['managed', 'trusted', 'modified', 'untrusted', 'disabled'] as const;
export type InventoryTrust = (typeof INVENTORY_TRUST)[number];
