// The policy/bundle contract: the version this engine understands (agents report it) and the minimum a policy's
// content needs, derived from what the content uses; one table the compiler checks.
import { HOOKS_TABLE_KEYS } from './keys';
import type { PolicyDocument } from './schema';

/** The contract this engine and its agent understand. Exported once; agents report it in every status report. */
export const CONTRACT_VERSION = 2;

/** Every contract version this engine knows. */
export type ContractVersion = 1 | 2;

/**
 * What each contract added. An agent that reports no contract (one from before contract reporting) understands 1.
 * `needs`: whether a policy's content needs this contract to be enforced as reviewed.
 */
export const CONTRACTS = {
  1: {
    summary:
      'requirements.toml schema and bundle format 1: the agent verifies the signature, hashes and paths, then applies',
    needs: (): boolean => true,
  },
  2: {
    summary:
      'the agent refuses a bundle its own engine would not run as written (the old layer stays, reported failed); the engine reads the managed layer hook by hook (an unreadable hook is recorded as failed, a timeout above 86400 s is clamped), so one bad value never removes the other managed hooks',
    // With managed hooks, an agent of contract 1 can switch to a layer its engine then refuses as a whole: every
    // managed hook (every deny) is gone. Only contract 2 guarantees the hooks run as reviewed or the old layer stays.
    needs: (policy: PolicyDocument): boolean => managedHookCount(policy) > 0,
  },
} as const satisfies Record<ContractVersion, { summary: string; needs: (policy: PolicyDocument) => boolean }>;

/** The contract an endpoint understands: what it reported, or 1 for an agent from before contract reporting. */
export function endpointContract(reported: number | null | undefined): number {
  return reported ?? 1;
}

// Number of managed handlers in a policy's [hooks] table.
function managedHookCount(policy: PolicyDocument): number {
  let n = 0;
  for (const [key, groups] of Object.entries(policy.hooks ?? {})) {
    if (HOOKS_TABLE_KEYS.includes(key) || !Array.isArray(groups)) continue;
    for (const g of groups as Array<{ hooks?: unknown }>) n += Array.isArray(g.hooks) ? g.hooks.length : 0;
  }
  return n;
}

/** The minimum contract a policy's content needs, with why (the summary of each contract it needs above 1). */
export function requiredContract(policy: PolicyDocument): { contract: ContractVersion; reasons: string[] } {
  let contract: ContractVersion = 1;
  const reasons: string[] = [];
  const versions = (Object.keys(CONTRACTS).map(Number) as ContractVersion[]).sort((a, b) => a - b);
  for (const v of versions) {
    if (v === 1 || !CONTRACTS[v].needs(policy)) continue;
    contract = v;
    reasons.push(`contract ${v}: ${CONTRACTS[v].summary}`);
  }
  return { contract, reasons };
}
