// The policy/bundle contract: one exported version, the minimum a version's content needs, and who is older.
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_VERSION,
  CONTRACTS,
  endpointContract,
  outdatedAgents,
  parsePolicyToml,
  requiredContract,
  type PolicyDocument,
} from '@hookwarden/hook-core';

// A parsed requirements.toml.
function policy(text: string): PolicyDocument {
  const p = parsePolicyToml(text);
  if (!p.ok) throw new Error(JSON.stringify(p.diagnostics));
  return p.policy;
}

const WITH_HOOK = `[hooks]\nmanaged_dir = "/opt/h"\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/h/s.sh"\n`;

describe('contract', () => {
  it('CONTRACT_VERSION is the newest contract of the table', () => {
    expect(CONTRACT_VERSION).toBe(Math.max(...Object.keys(CONTRACTS).map(Number)));
  });

  it('content with managed hooks needs contract 2; flags alone need 1', () => {
    expect(requiredContract(policy(WITH_HOOK))).toEqual({
      contract: 2,
      reasons: [`contract 2: ${CONTRACTS[2].summary}`],
    });
    expect(requiredContract(policy('[features]\nhooks = false\n'))).toEqual({ contract: 1, reasons: [] });
    expect(requiredContract(policy('[hooks]\nmanaged_dir = "/opt/h"\n[[hooks.Stop]]\nhooks = []\n')).contract).toBe(1);
  });

  it('an agent that reports no contract understands contract 1', () => {
    expect(endpointContract(null)).toBe(1);
    expect(endpointContract(undefined)).toBe(1);
    expect(endpointContract(2)).toBe(2);
  });

  it('outdatedAgents names the endpoints below the version’s contract, with their versions and why', () => {
    const eps = [
      { endpointId: 'a', hostname: 'new', inventory: null, agentVersion: '0.1.0', contractVersion: 2 },
      { endpointId: 'b', hostname: 'old', inventory: null, agentVersion: '0.0.9', contractVersion: null },
      { endpointId: 'c', hostname: 'one', inventory: null, agentVersion: '0.1.0', contractVersion: 1 },
    ];
    const r = outdatedAgents(policy(WITH_HOOK), eps);
    expect(r.requiredContract).toBe(2);
    expect(r.outdated.map((o) => [o.endpointId, o.contractVersion])).toEqual([
      ['b', null],
      ['c', 1],
    ]);
    expect(r.outdated[0]!.reason).toMatch(/agent 0\.0\.9 reports no contract version/);
    expect(outdatedAgents(policy('[features]\nhooks = true\n'), eps).outdated).toEqual([]);
  });
});
