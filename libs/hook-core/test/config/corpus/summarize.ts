// Loads one corpus file as the layer its format implies and summarizes what discovery and lint make of it.
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverHooks, lintFile, type LintKind } from '../../support/core';
import { CORPUS_DIR } from '../../../../../test/support/shared';

export const CORPUS = CORPUS_DIR;

export interface CorpusSummary {
  format: string;
  layer: string;
  hooks: number;
  /** Hooks that would run under --dangerously-bypass-hook-trust (valid, supported, enabled). */
  runnable: number;
  events: string[];
  diagnostics: Record<string, number>;
  lint: { errors: string[]; warnings: string[] };
}

// Counts diagnostic codes.
function tally(codes: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of codes.sort()) out[c] = (out[c] ?? 0) + 1;
  return out;
}

// Places the file where its format belongs (user hooks.json / config.toml, plugin hooks/hooks.json, requirements.toml).
export function summarize(name: string, format: string): CorpusSummary {
  const root = mkdtempSync(join(tmpdir(), 'hc-corpus-'));
  const home = join(root, 'home');
  const system = join(root, 'etc');
  mkdirSync(home);
  mkdirSync(system);
  const src = join(CORPUS, name);
  let layer: string;
  let kind: LintKind;
  const opts: Parameters<typeof discoverHooks>[0] = {
    home,
    systemDir: system,
    requirementsPath: join(system, 'requirements.toml'),
    platform: 'linux',
    env: {},
    bypassTrust: true,
  };
  if (format === 'codex-requirements-toml') {
    layer = 'managed';
    kind = 'requirements.toml';
    copyFileSync(src, join(system, 'requirements.toml'));
  } else if (format === 'codex-config-toml') {
    layer = 'user';
    kind = 'config.toml';
    copyFileSync(src, join(home, 'config.toml'));
  } else if (format === 'plugin-hooks-json') {
    layer = 'plugin';
    kind = 'hooks.json';
    const plugin = join(root, 'plugin');
    mkdirSync(join(plugin, 'hooks'), { recursive: true });
    copyFileSync(src, join(plugin, 'hooks', 'hooks.json'));
    opts.plugins = [plugin];
  } else {
    layer = 'user';
    kind = 'hooks.json';
    copyFileSync(src, join(home, 'hooks.json'));
  }
  const d = discoverHooks(opts);
  const lint = lintFile(src, kind);
  return {
    format,
    layer,
    hooks: d.hooks.length,
    runnable: d.hooks.filter((h) => h.runnable).length,
    events: [...new Set(d.hooks.map((h) => h.event))].sort(),
    // The bypass used to count runnable hooks is itself warned about; that warning says nothing about the file.
    diagnostics: tally(
      d.diagnostics.filter((x) => x.code !== 'hook_trust_bypassed').map((x) => `${x.severity}:${x.code}`),
    ),
    lint: {
      errors: [...new Set(lint.errors.map((e) => e.code))].sort(),
      warnings: [...new Set(lint.warnings.map((e) => e.code))].sort(),
    },
  };
}
