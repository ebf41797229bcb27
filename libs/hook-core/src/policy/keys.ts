// The requirements.toml keys the hooks system interprets (no zod: the engine's dispatch path reads them).

/** Top-level keys the hooks system interprets; everything else is carried through unchanged. */
export const INTERPRETED_TOP_KEYS: readonly string[] = ['allow_managed_hooks_only', 'features', 'hooks'];
/** Non-event keys allowed inside `[hooks]`. */
export const HOOKS_TABLE_KEYS: readonly string[] = ['managed_dir', 'windows_managed_dir'];
/** Handler keys in canonical rendering order. */
export const HANDLER_KEY_ORDER: readonly string[] = [
  'type',
  'command',
  'command_windows',
  'commandWindows',
  'timeout',
  'async',
  'statusMessage',
  'additionalContextLimit',
  'prompt',
];
