// The location/run options of zerotwo-hooks once parsed, and what the commands make of them (discovery options,
// capture settings). No commander here: the dispatch fast path (./dispatch-fast) uses these without building a program.
import { discoverHooks, type DiscoverOptions } from '../config/discover';
import { type CaptureMode, DEFAULT_CAPTURE_SETTINGS } from '../record/capture';
import { MAX_EXCERPT_BYTES_LIMIT } from '../record/capture-limits';
import type { CaptureSettings } from '../record/capture-schema';
import type { Discovery } from '../types';

/** Parsed global options. */
export interface CliOptions {
  home?: string;
  project?: string;
  systemDir?: string;
  requirements?: string;
  plugin: string[];
  tempDir?: string;
  spool?: string;
  dangerouslyBypassHookTrust?: boolean;
  loginShell?: boolean;
  cwd?: string;
  capture?: CaptureMode;
  redact: string[];
  /** false with --no-default-redact (only the --redact patterns apply); unset means the defaults apply. */
  defaultRedact?: boolean;
  maxExcerptBytes?: number;
  policyRevision?: string;
}

/** Why `--max-excerpt-bytes` is not a decimal integer within the capture settings' bound, or null when it is. */
export function excerptBytesError(value: string): string | null {
  return !/^\d{1,8}$/.test(value.trim()) || Number(value) > MAX_EXCERPT_BYTES_LIMIT
    ? `expected an integer number of bytes from 0 to ${MAX_EXCERPT_BYTES_LIMIT}.`
    : null;
}

/** Discovery options from the CLI options. */
export function discoverOptions(o: CliOptions, cwd?: string): DiscoverOptions {
  return {
    home: o.home,
    projectDir: o.project,
    systemDir: o.systemDir,
    requirementsPath: o.requirements,
    plugins: o.plugin,
    cwd: cwd ?? o.cwd ?? process.cwd(),
    bypassTrust: o.dangerouslyBypassHookTrust === true,
  };
}

/** Discover hooks for the CLI options. */
export function discoverFor(o: CliOptions, cwd?: string): Discovery {
  return discoverHooks(discoverOptions(o, cwd));
}

/** Capture settings from the CLI options (defaults: DEFAULT_CAPTURE_SETTINGS). */
export function capturePolicy(o: CliOptions): CaptureSettings {
  return {
    capture: o.capture ?? DEFAULT_CAPTURE_SETTINGS.capture,
    maxExcerptBytes: o.maxExcerptBytes ?? DEFAULT_CAPTURE_SETTINGS.maxExcerptBytes,
    redactPatterns: o.redact,
    useDefaultRedact: o.defaultRedact !== false,
    inventoryCommands: DEFAULT_CAPTURE_SETTINGS.inventoryCommands,
  };
}
