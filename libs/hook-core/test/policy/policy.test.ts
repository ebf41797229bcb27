import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { lintPolicy, parsePolicyToml, renderPolicyToml, validatePolicyObject } from '../support/core';
import { CORPUS_DIR, HAS_SHARED } from '../../../../test/support/shared';

const CORPUS = CORPUS_DIR;

const SPEC_EXAMPLE = `allow_managed_hooks_only = true

[features]
hooks = true

[hooks]
managed_dir = "~/.zerotwo/hooks"
windows_managed_dir = 'C:\\enterprise\\hooks'

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.zerotwo/hooks/pre_tool_use_policy.py"
command_windows = 'py -3 C:\\enterprise\\hooks\\pre_tool_use_policy.py'
timeout = 30
statusMessage = "Checking managed Bash command"
`;

describe('parsePolicyToml', () => {
  it('accepts the spec example and keeps its values', () => {
    const r = parsePolicyToml(SPEC_EXAMPLE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.policy.allow_managed_hooks_only).toBe(true);
    expect(r.policy.hooks?.managed_dir).toBe('~/.zerotwo/hooks');
    expect(r.policy.hooks?.['PreToolUse']?.[0]?.hooks[0]?.timeout).toBe(30);
    expect(r.diagnostics).toEqual([]);
  });

  it('reports TOML syntax errors with line and column', () => {
    const r = parsePolicyToml('allow_managed_hooks_only = true\n[hooks\nx = 1\n', '/etc/zerotwo/requirements.toml');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'error',
      code: 'toml_syntax',
      line: 2,
      file: '/etc/zerotwo/requirements.toml',
    });
    expect(r.diagnostics[0]?.column).toBeGreaterThan(0);
  });

  it('reports schema errors with the key path and line', () => {
    const text = SPEC_EXAMPLE.replace('timeout = 30', 'timeout = "30"');
    const r = parsePolicyToml(text);
    expect(r.ok).toBe(false);
    const d = r.diagnostics.find((x) => x.code === 'invalid_type');
    expect(d).toMatchObject({ path: '$.hooks.PreToolUse[0].hooks[0].timeout', line: 17 });
  });

  it('rejects unknown events and unknown handler keys inside [hooks], with locations', () => {
    const r = parsePolicyToml(
      '[hooks]\nenabled = false\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "x"\nonce = true\n',
    );
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'unknown_event', path: '$.hooks.enabled', line: 2 }),
        expect.objectContaining({ code: 'unknown_key', path: '$.hooks.PreToolUse[0].hooks[0].once', line: 8 }),
      ]),
    );
  });

  it('requires a command for command handlers', () => {
    const r = validatePolicyObject({ hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'invalid_value', path: '$.hooks.Stop[0].hooks[0].command' });
  });

  it.skipIf(!HAS_SHARED)('carries non-hook keys through unchanged and notes them as not interpreted', () => {
    const text = readFileSync(join(CORPUS, '059-carc-requirements-managed-dir-inline.toml'), 'utf8');
    const r = parsePolicyToml(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const raw = parse(text) as Record<string, unknown>;
    for (const k of Object.keys(raw)) expect(r.policy[k]).toEqual(raw[k]);
    const note = r.diagnostics.find((d) => d.code === 'not_interpreted');
    expect(note?.severity).toBe('warning');
    expect(note?.message).toContain('allowed_web_search_modes');
  });

  it('warns about the deprecated zerocode_hooks alias', () => {
    const r = parsePolicyToml('[features]\nzerocode_hooks = false\n');
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toContain('deprecated_feature_alias');
  });
});

describe('validatePolicyObject', () => {
  it('gives JSON paths for structured input', () => {
    const r = validatePolicyObject({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 'slow' }] }] },
    });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]?.path).toBe('$.hooks.PreToolUse[0].hooks[0].timeout');
  });

  it('rejects values TOML cannot represent', () => {
    const r = validatePolicyObject({ rules: { x: null } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'invalid_type', path: '$.rules.x' });
  });

  it('rejects a non-object document', () => {
    expect(validatePolicyObject([1]).ok).toBe(false);
  });
});

describe('renderPolicyToml', () => {
  const requirements = (HAS_SHARED ? ['010', '042', '043', '059', '060', '061'] : []).map((p) =>
    readFileSync(
      join(
        CORPUS,
        readdirSync(CORPUS).find((f) => f.startsWith(p))!,
      ),
      'utf8',
    ),
  );

  it('round-trips through smol-toml and is byte-stable', () => {
    let checked = 0;
    for (const text of [SPEC_EXAMPLE, ...requirements]) {
      const r = parsePolicyToml(text);
      if (!r.ok) continue;
      const out = renderPolicyToml(r.policy);
      expect(parse(out)).toEqual(JSON.parse(JSON.stringify(r.policy)) as unknown);
      const again = parsePolicyToml(out);
      expect(again.ok).toBe(true);
      if (again.ok) expect(renderPolicyToml(again.policy)).toBe(out);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(HAS_SHARED ? 5 : 1);
  });

  it('puts hook-system keys first in a fixed order, then carried keys sorted', () => {
    const r = validatePolicyObject({
      zeta: { b: 1, a: 2 },
      hooks: { Stop: [{ hooks: [{ timeout: 5, command: 'x', type: 'command' }] }], managed_dir: '/opt/h' },
      alpha: 1,
      features: { other: true, hooks: true },
      allow_managed_hooks_only: false,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(renderPolicyToml(r.policy)).toBe(
      [
        'allow_managed_hooks_only = false',
        'alpha = 1',
        '',
        '[features]',
        'hooks = true',
        'other = true',
        '',
        '[hooks]',
        'managed_dir = "/opt/h"',
        '',
        '[[hooks.Stop]]',
        '[[hooks.Stop.hooks]]',
        'type = "command"',
        'command = "x"',
        'timeout = 5',
        '',
        '[zeta]',
        'a = 2',
        'b = 1',
        '',
      ].join('\n'),
    );
  });
});

describe('lintPolicy', () => {
  it("refuses the spec example's ~ managed_dir saying why, and accepts it with an absolute one", () => {
    const r = parsePolicyToml(SPEC_EXAMPLE);
    if (!r.ok) throw new Error('parse');
    const l = lintPolicy(r.policy, [{ path: 'pre_tool_use_policy.py' }], { sourceText: SPEC_EXAMPLE });
    expect(l.errors).toEqual([
      expect.objectContaining({ code: 'managed_dir_home_relative', path: '$.hooks.managed_dir', line: 7 }),
    ]);
    expect(l.errors[0]!.message).toMatch(/system-wide/);
    const text = SPEC_EXAMPLE.replaceAll('~/.zerotwo/hooks', '/opt/zerotwo/hooks');
    const abs = parsePolicyToml(text);
    if (!abs.ok) throw new Error('parse');
    const ok = lintPolicy(abs.policy, [{ path: 'pre_tool_use_policy.py' }]);
    expect(ok.errors).toEqual([]);
    expect(ok.warnings).toEqual([]);
  });

  it('reports invalid matchers, bad dirs, unsafe files and timeouts as errors with locations', () => {
    const text = `[hooks]
managed_dir = "hooks"
windows_managed_dir = "hooks"

[[hooks.PreToolUse]]
matcher = "Edit|*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "hooks/x.sh"
timeout = 100000

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "y"
timeout = 1.5
`;
    const r = parsePolicyToml(text);
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const l = lintPolicy(r.policy, [{ path: '../etc/passwd' }, { path: '/abs' }, { path: 'a\\b' }, { path: 'ok.sh' }], {
      sourceText: text,
    });
    const codes = l.errors.map((e) => `${e.code}@${e.path}:${e.line ?? ''}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'managed_dir_not_absolute@$.hooks.managed_dir:2',
        'windows_managed_dir_not_absolute@$.hooks.windows_managed_dir:3',
        'invalid_matcher@$.hooks.PreToolUse[0].matcher:6',
        'timeout_out_of_range@$.hooks.PreToolUse[0].hooks[0].timeout:11',
        'timeout_out_of_range@$.hooks.Stop[0].hooks[0].timeout:17',
        'unsafe_file_path@$.files[0].path:',
        'unsafe_file_path@$.files[1].path:',
        'unsafe_file_path@$.files[2].path:',
      ]),
    );
    expect(l.errors).toHaveLength(8);
  });

  it('warns about missing scripts, context limits, skipped handlers, SessionEnd cap and carried keys', () => {
    const r = validatePolicyObject({
      rules: { prefix_rules: [] },
      hooks: {
        managed_dir: '/opt/hooks',
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/opt/hooks/missing.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: '/opt/hooks/a.sh', additionalContextLimit: 10 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: '/opt/hooks/a.sh', timeout: 10 }] }],
        SessionStart: [
          {
            hooks: [
              { type: 'prompt', prompt: 'x' },
              { type: 'command', command: '/opt/hooks/a.sh', async: true },
            ],
          },
        ],
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const l = lintPolicy(r.policy, [{ path: 'a.sh', mode: 0o755 }]);
    expect(l.errors).toEqual([]);
    expect(l.warnings.map((w) => `${w.code}@${w.path}`).sort()).toEqual(
      [
        'managed_script_missing@$.hooks.PreToolUse[0].hooks[0].command',
        'additional_context_ignored@$.hooks.Stop[0].hooks[0].additionalContextLimit',
        'session_end_timeout_clamped@$.hooks.SessionEnd[0].hooks[0].timeout',
        'handler_type_unsupported@$.hooks.SessionStart[0].hooks[0].type',
        'async_unsupported@$.hooks.SessionStart[0].hooks[1].async',
        'not_interpreted@$.rules',
      ].sort(),
    );
  });

  it.skipIf(!HAS_SHARED)('warns when managed-only mode has no managed hooks', () => {
    const r = parsePolicyToml(readFileSync(join(CORPUS, '010-workspace-guide-requirements-managed-only.toml'), 'utf8'));
    if (!r.ok) throw new Error('parse');
    expect(lintPolicy(r.policy).warnings.map((w) => w.code)).toContain('no_managed_hooks');
  });
});

describe('lintPolicy: shipped file modes', () => {
  it('warns when a directly-run script ships without an executable mode', () => {
    const r = validatePolicyObject({
      hooks: {
        managed_dir: '/opt/h',
        Stop: [
          {
            hooks: [
              { type: 'command', command: '/opt/h/run.sh --x' },
              { type: 'command', command: 'python3 /opt/h/p.py' },
            ],
          },
        ],
      },
    });
    if (!r.ok) throw new Error('parse');
    const l = lintPolicy(r.policy, [
      { path: 'run.sh', mode: 0o644 },
      { path: 'p.py', mode: 0o644 },
    ]);
    expect(l.warnings.map((w) => `${w.code}@${w.path}`)).toEqual([
      'script_not_executable@$.hooks.Stop[0].hooks[0].command',
    ]);
    expect(lintPolicy(r.policy, [{ path: 'run.sh', mode: 0o755 }, { path: 'p.py' }]).warnings).toEqual([]);
  });
});

describe('renderPolicyToml: carried values of every TOML type', () => {
  it('round-trips datetimes, nested tables, arrays of tables and quoted keys', () => {
    const text = `updated = 2026-07-25T04:39:53Z
day = 2026-07-25
allowed_sandbox_modes = ["read-only", "workspace-write"]

[permissions."net.example"]
allow = true
ratio = 0.5

[[rules.prefix_rules]]
pattern = [{ token = "git" }, { any_of = ["push", "fetch"] }]
decision = "prompt"
`;
    const r = parsePolicyToml(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const out = renderPolicyToml(r.policy);
    const back = parsePolicyToml(out);
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(back.policy).toEqual(r.policy);
    expect(renderPolicyToml(back.policy)).toBe(out);
    expect((back.policy['updated'] as Date).toISOString()).toBe('2026-07-25T04:39:53.000Z');
    expect(out).toContain('day = 2026-07-25\n');
  });
});
