// collectInventory's redaction: RE2 patterns, and no command text when a pattern does not compile.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectInventory, inventoryDocumentSchema } from '../support/core';
import { tmp } from '../engine/support';

/** A home whose user hooks.json has one command carrying a secret. */
function home(): { user: string; homeDir: string } {
  const homeDir = tmp('hc-inventory-');
  mkdirSync(join(homeDir, '.zerotwo'), { recursive: true });
  const command = 'deploy --token=hunter2secret ACME-123456';
  writeFileSync(
    join(homeDir, '.zerotwo', 'hooks.json'),
    JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } }),
  );
  return { user: 'alice', homeDir };
}

describe('collectInventory redaction', () => {
  it('verbatim commands are redacted by the default and the RE2 patterns', () => {
    const inv = collectInventory({
      homes: [home()],
      requirementsPath: null,
      commandMode: 'verbatim',
      redact: { redactPatterns: ['ACME-\\d{6}'], useDefaultRedact: true },
      policyRevision: null,
    });
    expect(inventoryDocumentSchema.safeParse(inv).success).toBe(true);
    expect(inv.commandMode).toBe('verbatim');
    expect(inv.hooks.map((h) => h.command)).toEqual(['deploy --[REDACTED] [REDACTED]']);
  });

  it('a pattern the engine cannot compile: commands are reported as hashes only, with a warning', () => {
    const inv = collectInventory({
      homes: [home()],
      requirementsPath: null,
      commandMode: 'verbatim',
      redact: { redactPatterns: ['ACME(?=-)'], useDefaultRedact: true },
      policyRevision: null,
    });
    expect(inventoryDocumentSchema.safeParse(inv).success).toBe(true);
    expect(inv.commandMode).toBe('hash');
    expect(inv.hooks).toHaveLength(1);
    expect(inv.hooks[0]).toMatchObject({
      command: null,
      program: null,
      commandHash: expect.stringMatching(/^sha256:/),
    });
    expect(inv.warnings).toContainEqual(expect.objectContaining({ code: 'invalid_redaction_pattern' }));
  });
});
