// The capture settings' modes and bounds (shared by the engine's capture and the settings' zod schema).

/** What records keep of hook output. */
export const CAPTURE_MODES = ['none', 'digests', 'excerpts'] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

/** Largest excerpt bound an admin may set (bytes). */
export const MAX_EXCERPT_BYTES_LIMIT = 65_536;
/** Most extra redaction patterns, and the longest one (characters). */
export const MAX_REDACT_PATTERNS = 100;
export const MAX_REDACT_PATTERN_CHARS = 500;
