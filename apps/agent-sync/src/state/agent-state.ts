// The agent's own state: last good bundle (verified, re-verifiable) and what it last did, in the state directory.
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file';

export const LAST_GOOD_FILE = 'last-good-bundle.json';
/** The last shadow bundle that verified and applied (restores the shadow layer at start and after drift). */
export const LAST_GOOD_SHADOW_FILE = 'last-good-shadow-bundle.json';
export const STATE_FILE = 'agent-state.json';

/** The shadow layer the agent applied (issue 27). */
export interface ShadowState {
  releaseId: string;
  /** The group of the shadow bundle (its replay floor's). */
  groupId: string;
  revision: number;
  digest: string;
  appliedAt: string;
}

export interface AgentState {
  appliedRevision: number | null;
  appliedDigest: string | null;
  policyVersion: number | null;
  appliedAt: string | null;
  lastCheckInAt: string | null;
  lastState: 'applied' | 'failed' | 'drifted' | null;
  lastError: string | null;
  drift: string[];
  driftRepairedAt: string | null;
  /** Per group: the highest revision applied (or named as the floor by an assignment); older bundles are replays. */
  revisionFloors: Record<string, number>;
  /** The revision the last status report about the managed layer was about (re-sent with shadow-only reports). */
  lastTargetRevision: number | null;
  /** The shadow layer on disk (null: none). */
  shadow: ShadowState | null;
  /** Why the last shadow bundle was refused (null: none refused since the last one applied). */
  shadowError: string | null;
  /** Per group: the highest shadow revision applied; older shadow bundles are replays. */
  shadowFloors: Record<string, number>;
}

export const EMPTY_STATE: AgentState = {
  appliedRevision: null,
  appliedDigest: null,
  policyVersion: null,
  appliedAt: null,
  lastCheckInAt: null,
  lastState: null,
  lastError: null,
  drift: [],
  driftRepairedAt: null,
  revisionFloors: {},
  lastTargetRevision: null,
  shadow: null,
  shadowError: null,
  shadowFloors: {},
};

// Reads a JSON file, or null when missing or unreadable.
// Read synchronously: every hook event reads the state (`hooks dispatch`), and a small local file needs no
// node:fs/promises (a dozen more modules for a short process to load).
function readJson(file: string): Promise<unknown> {
  try {
    return Promise.resolve(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return Promise.resolve(null);
  }
}

// Per-group revision floors as stored (anything that is not a positive integer dropped).
function floorsOf(stored: unknown): Record<string, number> {
  const floors: Record<string, number> = {};
  if (stored && typeof stored === 'object') {
    for (const [group, rev] of Object.entries(stored)) {
      if (Number.isSafeInteger(rev) && (rev as number) > 0) floors[group] = rev as number;
    }
  }
  return floors;
}

// The shadow state as stored, or null when absent or malformed.
function shadowOf(stored: unknown): ShadowState | null {
  const s = stored as Partial<ShadowState> | null;
  if (!s || typeof s !== 'object') return null;
  const ok =
    typeof s.releaseId === 'string' &&
    typeof s.groupId === 'string' &&
    Number.isSafeInteger(s.revision) &&
    typeof s.digest === 'string' &&
    typeof s.appliedAt === 'string';
  return ok ? (s as ShadowState) : null;
}

// The agent state (defaults when absent).
export async function readAgentState(stateDir: string): Promise<AgentState> {
  const raw = await readJson(path.join(stateDir, STATE_FILE));
  const state = { ...EMPTY_STATE, ...(raw && typeof raw === 'object' ? (raw as Partial<AgentState>) : {}) };
  return {
    ...state,
    revisionFloors: floorsOf(state.revisionFloors),
    shadowFloors: floorsOf(state.shadowFloors),
    shadow: shadowOf(state.shadow),
    lastTargetRevision: Number.isSafeInteger(state.lastTargetRevision) ? state.lastTargetRevision : null,
    shadowError: typeof state.shadowError === 'string' ? state.shadowError : null,
  };
}

// Stores the agent state atomically.
export async function writeAgentState(stateDir: string, state: AgentState): Promise<void> {
  await writeFileAtomic(path.join(stateDir, STATE_FILE), JSON.stringify(state, null, 2) + '\n', 0o600);
}

// The last bundle that verified and applied (raw: manifest text, signature, key id); re-verified before use.
export async function readLastGood(stateDir: string): Promise<unknown> {
  return readJson(path.join(stateDir, LAST_GOOD_FILE));
}

// Keeps a bundle as the last good one.
export async function writeLastGood(stateDir: string, raw: unknown): Promise<void> {
  await writeFileAtomic(path.join(stateDir, LAST_GOOD_FILE), JSON.stringify(raw) + '\n', 0o600);
}

// The last shadow bundle that verified and applied (re-verified before use), or null.
export async function readLastGoodShadow(stateDir: string): Promise<unknown> {
  return readJson(path.join(stateDir, LAST_GOOD_SHADOW_FILE));
}

// Keeps a shadow bundle as the last good one (null: the shadow layer was removed).
export async function writeLastGoodShadow(stateDir: string, raw: unknown): Promise<void> {
  const file = path.join(stateDir, LAST_GOOD_SHADOW_FILE);
  if (raw === null) await fs.rm(file, { force: true });
  else await writeFileAtomic(file, JSON.stringify(raw) + '\n', 0o600);
}
