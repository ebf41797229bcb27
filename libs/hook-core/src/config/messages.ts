// Warning texts shared by the loaders and the policy linter (the first two mirror the reference engine verbatim).
import type { HookEvent } from '../types';
import { MAX_TIMEOUT_SEC } from './events';

/** Diagnostic codes whose messages reproduce the reference engine's configuration warnings exactly. */
export const REFERENCE_WARNING_CODES: ReadonlySet<string> = new Set([
  'additional_context_ignored',
  'session_end_timeout_clamped',
]);

// Reference text: additionalContextLimit on an event that cannot emit additionalContext.
export function additionalContextIgnored(event: HookEvent, file: string): string {
  return `ignoring additionalContextLimit for ${event} hook in ${file}: this event cannot emit additionalContext`;
}

// Reference text: a SessionEnd timeout above the 3 s cap.
export function sessionEndClamped(file: string): string {
  return `clamping SessionEnd hook timeout to 3s in ${file}`;
}

// A timeout above the engine's limit: the hook runs with the limit instead of being dropped.
export function timeoutClamped(timeout: number, file: string): string {
  return `clamping hook timeout ${timeout}s to the ${MAX_TIMEOUT_SEC}s limit in ${file}`;
}
