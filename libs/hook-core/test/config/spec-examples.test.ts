import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintPolicy, lintText, loadConfigTomlText, loadHooksJsonText, parsePolicyToml } from '../support/core';
import { HAS_SHARED, SPEC_FILE } from '../../../../test/support/shared';

// The spec's own examples, cut out of the spec text.
const spec = HAS_SHARED ? readFileSync(SPEC_FILE, 'utf8') : '';
const between = (start: string, end: string): string =>
  spec.slice(spec.indexOf(start), spec.indexOf(end, spec.indexOf(start)));
const HOOKS_JSON = between('{\n  "description"', '\nNotes:');
const CONFIG_TOML = between('[[hooks.SessionStart]]', 'Turn hooks off');
const REQUIREMENTS = between('allow_managed_hooks_only = true\n\n[features]', 'Notes for managed hooks');

describe.skipIf(!HAS_SHARED)("the spec's examples", () => {
  it('hooks.json example: 7 hooks, no diagnostics', () => {
    const r = loadHooksJsonText(HOOKS_JSON, '/u/hooks.json');
    expect(r.ok).toBe(true);
    expect(r.events.map((e) => e.event)).toEqual([
      'SessionStart',
      'SessionEnd',
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'UserPromptSubmit',
      'Stop',
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(lintText(HOOKS_JSON, 'hooks.json')).toEqual({ errors: [], warnings: [] });
  });

  it('inline config.toml example: 3 hooks, no diagnostics', () => {
    const r = loadConfigTomlText(CONFIG_TOML, '/u/config.toml');
    expect(r.events.flatMap((e) => e.groups.flatMap((g) => g.handlers))).toHaveLength(3);
    expect(r.diagnostics).toEqual([]);
  });

  it('requirements.toml example: valid for the engine (no lint errors or warnings)', () => {
    expect(lintText(REQUIREMENTS, 'requirements.toml')).toEqual({ errors: [], warnings: [] });
  });

  it('the same example shipped as a Hookwarden bundle (with its files) is refused: the managed layer is system-wide', () => {
    const r = parsePolicyToml(REQUIREMENTS);
    if (!r.ok) throw new Error('parse');
    const l = lintPolicy(r.policy, []);
    expect(l.errors).toEqual([expect.objectContaining({ code: 'managed_dir_home_relative' })]);
    expect(l.errors[0]!.message).toMatch(/system-wide/);
  });
});
