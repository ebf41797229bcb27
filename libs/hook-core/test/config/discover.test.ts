import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverHooks, resolveLocations, type DiscoverOptions } from '../support/core';

// A fresh tree: user, system, requirements and a git repo, all under one temp root.
function tree(): { root: string; user: string; system: string; req: string; repo: string; opts: DiscoverOptions } {
  const root = mkdtempSync(join(tmpdir(), 'hc-discover-'));
  const user = join(root, 'home', '.zerotwo');
  const system = join(root, 'etc', 'zerotwo');
  const repo = join(root, 'repo');
  for (const d of [user, system, join(repo, '.git'), join(repo, '.zerotwo')]) mkdirSync(d, { recursive: true });
  const req = join(system, 'requirements.toml');
  return {
    root,
    user,
    system,
    req,
    repo,
    opts: { home: user, systemDir: system, requirementsPath: req, platform: 'linux', env: {} },
  };
}
const stop = (cmd: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd }] }] } });
const MANAGED = `[hooks]
managed_dir = "/opt/zerotwo/hooks"

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/zerotwo/hooks/policy.sh"
`;

describe('discoverHooks: layers', () => {
  it('loads every layer, all hooks run side by side, listed managed → system → user → project → session → plugin', () => {
    const t = tree();
    writeFileSync(t.req, MANAGED);
    writeFileSync(join(t.system, 'hooks.json'), stop('echo system'));
    writeFileSync(join(t.user, 'hooks.json'), stop('echo user'));
    writeFileSync(join(t.user, 'config.toml'), `[projects.${JSON.stringify(t.repo)}]\ntrust_level = "trusted"\n`);
    writeFileSync(
      join(t.repo, '.zerotwo', 'config.toml'),
      '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo project"\n',
    );
    const plugin = join(t.root, 'plug');
    mkdirSync(join(plugin, 'hooks'), { recursive: true });
    writeFileSync(join(plugin, 'hooks', 'hooks.json'), stop('echo plugin'));
    const d = discoverHooks({
      ...t.opts,
      cwd: join(t.repo),
      sessionHooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo session' }] }] },
      plugins: [plugin],
    });
    expect(d.hooks.map((h) => [h.layer, h.handler.command ?? h.handler.type, h.trust])).toEqual([
      ['managed', '/opt/zerotwo/hooks/policy.sh', 'managed'],
      ['system', 'echo system', 'managed'],
      ['user', 'echo user', 'untrusted'],
      ['project', 'echo project', 'untrusted'],
      ['session', 'echo session', 'untrusted'],
      ['plugin', 'echo plugin', 'untrusted'],
    ]);
    expect(d.hooks[0]!.key).toBe(`${t.req}:pre_tool_use:0:0`);
    expect(d.hooks[5]!.key).toBe('plug:hooks/hooks.json:stop:0:0');
    expect(d.hooks[5]!.plugin).toEqual({
      name: 'plug',
      root: plugin,
      dataDir: join(t.user, 'plugins', 'data', 'plug'),
    });
    expect(d.managed).toMatchObject({
      requirementsPath: t.req,
      allowManagedHooksOnly: false,
      managedDir: '/opt/zerotwo/hooks',
    });
    expect(d.managed?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(d.hooksEnabled).toBe(true);
  });

  it('merges hooks.json and config.toml of one layer (hooks.json first) and warns once', () => {
    const t = tree();
    writeFileSync(join(t.user, 'hooks.json'), stop('echo json'));
    writeFileSync(
      join(t.user, 'config.toml'),
      '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo toml"\n',
    );
    const d = discoverHooks(t.opts);
    expect(d.hooks.map((h) => h.handler.command)).toEqual(['echo json', 'echo toml']);
    expect(d.hooks.map((h) => h.key)).toEqual([
      `${join(t.user, 'hooks.json')}:stop:0:0`,
      `${join(t.user, 'config.toml')}:stop:0:0`,
    ]);
    expect(d.diagnostics.filter((x) => x.code === 'both_representations')).toHaveLength(1);
  });

  it('a malformed file drops only that file, with a located warning', () => {
    const t = tree();
    writeFileSync(join(t.user, 'hooks.json'), '{\n  "hooks": {\n    "Stop": [],\n  }\n}\n');
    writeFileSync(
      join(t.user, 'config.toml'),
      '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo toml"\n',
    );
    writeFileSync(join(t.system, 'config.toml'), '[hooks\n');
    const d = discoverHooks(t.opts);
    expect(d.hooks.map((h) => h.handler.command)).toEqual(['echo toml']);
    expect(d.diagnostics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'warning',
          code: 'json_syntax',
          file: join(t.user, 'hooks.json'),
          line: 3,
          column: 15,
        }),
        expect.objectContaining({
          severity: 'warning',
          code: 'toml_syntax',
          file: join(t.system, 'config.toml'),
          line: 1,
        }),
      ]),
    );
  });

  it('allow_managed_hooks_only skips user, project, session and plugin hooks, each reported', () => {
    const t = tree();
    writeFileSync(t.req, `allow_managed_hooks_only = true\n${MANAGED}`);
    writeFileSync(join(t.user, 'hooks.json'), stop('echo user'));
    writeFileSync(join(t.user, 'config.toml'), `[projects.${JSON.stringify(t.repo)}]\ntrust_level = "trusted"\n`);
    writeFileSync(join(t.repo, '.zerotwo', 'hooks.json'), stop('echo project'));
    writeFileSync(join(t.system, 'hooks.json'), stop('echo system'));
    const d = discoverHooks({
      ...t.opts,
      projectDir: t.repo,
      sessionHooks: { Stop: [] },
      plugins: [join(t.root, 'p')],
    });
    expect(d.hooks.map((h) => h.layer)).toEqual(['managed', 'system']);
    expect(d.skipped.map((s) => s.layer).sort()).toEqual(['plugin', 'project', 'session', 'user']);
    expect(d.skipped.every((s) => s.reason.includes('allow_managed_hooks_only'))).toBe(true);
  });

  it('a broken requirements.toml fails closed with a clear error', () => {
    const t = tree();
    writeFileSync(t.req, '[hooks]\nenabled = false\n');
    writeFileSync(join(t.user, 'hooks.json'), stop('echo user'));
    const d = discoverHooks(t.opts);
    expect(d.hooksEnabled).toBe(false);
    expect(d.hooks).toEqual([]);
    expect(d.featureReason).toContain('failing closed');
    expect(d.featureReason).toContain('enabled');
    expect(d.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'error', code: 'unknown_event', line: 2 }),
    );
    writeFileSync(t.req, 'x = [\n');
    const d2 = discoverHooks(t.opts);
    expect(d2.hooksEnabled).toBe(false);
    expect(d2.diagnostics[0]).toMatchObject({ severity: 'error', code: 'toml_syntax' });
  });
});

describe('discoverHooks: feature switch', () => {
  it('[features] hooks = false turns hooks off; zerocode_hooks is a deprecated alias', () => {
    const t = tree();
    writeFileSync(join(t.user, 'hooks.json'), stop('echo user'));
    writeFileSync(join(t.user, 'config.toml'), '[features]\nhooks = false\n');
    let d = discoverHooks({ ...t.opts, bypassTrust: true });
    expect(d.hooksEnabled).toBe(false);
    expect(d.featureReason).toContain('turned off');
    expect(d.hooks[0]!.runnable).toBe(false);
    expect(d.hooks[0]!.skipReason).toContain('hooks are off');
    writeFileSync(join(t.user, 'config.toml'), '[features]\nzerocode_hooks = false\n');
    d = discoverHooks(t.opts);
    expect(d.hooksEnabled).toBe(false);
    expect(d.diagnostics.map((x) => x.code)).toContain('deprecated_feature_alias');
  });

  it('requirements pin hooks = true overrides the user; hooks = false forces them off', () => {
    const t = tree();
    writeFileSync(join(t.user, 'config.toml'), '[features]\nhooks = false\n');
    writeFileSync(t.req, `[features]\nhooks = true\n\n${MANAGED}`);
    let d = discoverHooks(t.opts);
    expect(d.hooksEnabled).toBe(true);
    expect(d.featureReason).toContain('pinned on');
    expect(d.hooks[0]!.runnable).toBe(true);
    writeFileSync(join(t.user, 'config.toml'), '[features]\nhooks = true\n');
    writeFileSync(t.req, `[features]\nhooks = false\n`);
    d = discoverHooks(t.opts);
    expect(d.hooksEnabled).toBe(false);
    expect(d.featureReason).toContain('forced off');
  });
});

describe('discoverHooks: plugins', () => {
  it('manifest hooks entry: path, array of paths and inline objects; paths must stay inside the root', () => {
    const t = tree();
    const plugin = join(t.root, 'policy-plugin');
    mkdirSync(join(plugin, '.codex-plugin'), { recursive: true });
    mkdirSync(join(plugin, 'hooks'), { recursive: true });
    writeFileSync(join(plugin, 'hooks', 'hooks.json'), stop('echo default (not used)'));
    writeFileSync(join(plugin, 'hooks', 'a.json'), stop('echo a'));
    writeFileSync(
      join(plugin, '.codex-plugin', 'plugin.json'),
      JSON.stringify({
        name: 'repo-policy',
        hooks: [
          './hooks/a.json',
          '../outside.json',
          { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo inline' }] }] } },
        ],
      }),
    );
    const d = discoverHooks({ ...t.opts, requirementsPath: null, plugins: [{ root: plugin, dataDir: '/data/p' }] });
    expect(d.hooks.map((h) => [h.key, h.handler.command])).toEqual([
      ['repo-policy:hooks/a.json:stop:0:0', 'echo a'],
      ['repo-policy:.codex-plugin/plugin.json#2:stop:0:0', 'echo inline'],
    ]);
    expect(d.diagnostics).toContainEqual(expect.objectContaining({ code: 'invalid_plugin_hooks', path: '$.hooks[1]' }));
  });

  it('a single ./ path in .zerotwo-plugin/plugin.json', () => {
    const t = tree();
    const plugin = join(t.root, 'p2');
    mkdirSync(join(plugin, '.zerotwo-plugin'), { recursive: true });
    writeFileSync(join(plugin, 'h.json'), stop('echo h'));
    writeFileSync(join(plugin, '.zerotwo-plugin', 'plugin.json'), JSON.stringify({ name: 'p2', hooks: './h.json' }));
    const d = discoverHooks({ ...t.opts, requirementsPath: null, plugins: [plugin] });
    expect(d.hooks.map((h) => h.key)).toEqual(['p2:h.json:stop:0:0']);
  });
});

describe('plugin symlinks', () => {
  it('a manifest path that escapes the root through a symlink is refused', () => {
    const t = tree();
    const plugin = join(t.root, 'p3');
    mkdirSync(join(plugin, '.codex-plugin'), { recursive: true });
    writeFileSync(join(t.root, 'outside.json'), stop('echo outside'));
    symlinkSync(join(t.root, 'outside.json'), join(plugin, 'link.json'));
    writeFileSync(join(plugin, '.codex-plugin', 'plugin.json'), JSON.stringify({ name: 'p3', hooks: './link.json' }));
    const d = discoverHooks({ ...t.opts, requirementsPath: null, plugins: [plugin] });
    expect(d.hooks).toEqual([]);
    expect(d.diagnostics).toContainEqual(expect.objectContaining({ code: 'invalid_plugin_hooks', path: '$.hooks' }));
  });
});

describe('resolveLocations', () => {
  it('defaults per platform and honours ZEROTWO_HOME', () => {
    expect(resolveLocations({ platform: 'linux', env: { HOME: '/home/u' } })).toEqual({
      userDir: '/home/u/.zerotwo',
      systemDir: '/etc/zerotwo',
      requirementsPath: '/etc/zerotwo/requirements.toml',
      osHome: '/home/u',
    });
    expect(resolveLocations({ platform: 'linux', env: { HOME: '/home/u', ZEROTWO_HOME: '/z' } }).userDir).toBe('/z');
    expect(
      resolveLocations({ platform: 'win32', env: { USERPROFILE: 'C:\\Users\\u', ProgramData: 'D:\\PD' } }),
    ).toEqual({
      userDir: 'C:\\Users\\u\\.zerotwo',
      systemDir: 'D:\\PD\\ZeroTwo',
      requirementsPath: 'D:\\PD\\ZeroTwo\\requirements.toml',
      osHome: 'C:\\Users\\u',
    });
  });
});

describe('discoverHooks: Windows, with an injected in-memory filesystem', () => {
  it('uses %ProgramData%\\ZeroTwo, windows_managed_dir and win32 paths in keys', () => {
    const files = new Map<string, string>([
      [
        'D:\\PD\\ZeroTwo\\requirements.toml',
        `[hooks]\nmanaged_dir = "/opt/h"\nwindows_managed_dir = 'C:\\enterprise\\hooks'\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/h/a.sh"\ncommand_windows = 'C:\\enterprise\\hooks\\a.cmd'\n`,
      ],
      ['C:\\Users\\u\\.zerotwo\\hooks.json', stop('echo user')],
    ]);
    const d = discoverHooks({
      platform: 'win32',
      env: { USERPROFILE: 'C:\\Users\\u', ProgramData: 'D:\\PD' },
      fs: { readFile: (p) => files.get(p), exists: (p) => files.has(p) },
    });
    expect(d.hooks.map((h) => [h.key, h.handler.commandWindows ?? h.handler.command])).toEqual([
      ['D:\\PD\\ZeroTwo\\requirements.toml:stop:0:0', 'C:\\enterprise\\hooks\\a.cmd'],
      ['C:\\Users\\u\\.zerotwo\\hooks.json:stop:0:0', 'echo user'],
    ]);
    expect(d.managed?.managedDir).toBe('C:\\enterprise\\hooks');
  });
});
