// The agent's own state: last good bundle (verified, re-verifiable) and what it last did, in the state directory.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file';

export const LAST_GOOD_FILE = 'last-good-bundle.json';
export const STATE_FILE = 'agent-state.json';

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
};

// Reads a JSON file, or null when missing or unreadable.
async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return null;
  }
}

// The agent state (defaults when absent).
export async function readAgentState(stateDir: string): Promise<AgentState> {
  const raw = await readJson(path.join(stateDir, STATE_FILE));
  const state = { ...EMPTY_STATE, ...(raw && typeof raw === 'object' ? (raw as Partial<AgentState>) : {}) };
  const floors: Record<string, number> = {};
  if (state.revisionFloors && typeof state.revisionFloors === 'object') {
    for (const [group, rev] of Object.entries(state.revisionFloors)) {
      if (Number.isSafeInteger(rev) && rev > 0) floors[group] = rev;
    }
  }
  return { ...state, revisionFloors: floors };
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
