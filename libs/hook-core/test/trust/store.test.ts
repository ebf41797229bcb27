import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { disableHook, discoverHooks, enableHook, trustAll, trustHook, trustProject } from '../support/core';
import { CORPUS_DIR, HAS_SHARED } from '../../../../test/support/shared';

const CORPUS_STATE = join(CORPUS_DIR, '012-kuhrt-dotfiles-config-hooks-state.toml');

// A user dir with one hooks.json holding two hooks.
function setup(configText?: string): { home: string; file: string } {
  const home = mkdtempSync(join(tmpdir(), 'hc-trust-'));
  const file = join(home, 'hooks.json');
  writeFileSync(
    file,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'echo a' },
              { type: 'command', command: 'echo b' },
            ],
          },
        ],
      },
    }),
  );
  if (configText !== undefined) writeFileSync(join(home, 'config.toml'), configText);
  return { home, file };
}
const discover = (home: string, extra: object = {}) =>
  discoverHooks({ home, requirementsPath: null, systemDir: join(home, 'nosys'), platform: 'linux', env: {}, ...extra });

describe('trust store', () => {
  it('new hooks are untrusted and not runnable; trusting makes them trusted; changing the definition makes them modified', () => {
    const { home, file } = setup();
    let d = discover(home);
    expect(d.hooks.map((h) => h.trust)).toEqual(['untrusted', 'untrusted']);
    expect(d.hooks.every((h) => h.runnable === false && h.skipReason?.includes('not trusted'))).toBe(true);
    expect(d.diagnostics.map((x) => x.code)).toContain('hooks_need_review');
    trustHook(home, d.hooks[0]!.key, d.hooks[0]!.hash);
    d = discover(home);
    expect(d.hooks.map((h) => h.trust)).toEqual(['trusted', 'untrusted']);
    expect(d.hooks[0]!.runnable).toBe(true);
    writeFileSync(file, readFileSync(file, 'utf8').replace('echo a', 'echo changed'));
    d = discover(home);
    expect(d.hooks[0]!.trust).toBe('modified');
    expect(d.hooks[0]!.skipReason).toContain('changed');
  });

  it('trustAll, disable and enable', () => {
    const { home } = setup();
    const keys = trustAll(home, discover(home).hooks);
    expect(keys).toHaveLength(2);
    expect(discover(home).hooks.map((h) => h.trust)).toEqual(['trusted', 'trusted']);
    const key = discover(home).hooks[1]!.key;
    disableHook(home, key);
    expect(discover(home).hooks[1]!.trust).toBe('disabled');
    expect(discover(home, { bypassTrust: true }).hooks[1]!.runnable).toBe(false);
    enableHook(home, key);
    expect(discover(home).hooks[1]!.trust).toBe('trusted');
  });

  it('bypass makes enabled untrusted hooks runnable without changing their status', () => {
    const { home } = setup();
    const d = discover(home, { bypassTrust: true });
    expect(d.hooks.map((h) => [h.trust, h.runnable])).toEqual([
      ['untrusted', true],
      ['untrusted', true],
    ]);
  });

  it.skipIf(!HAS_SHARED)(
    'writes the reference on-disk shape and preserves comments and formatting of a real config',
    () => {
      const original = readFileSync(CORPUS_STATE, 'utf8');
      const { home } = setup(original);
      const [a, b] = discover(home).hooks;
      trustHook(home, a!.key, a!.hash);
      disableHook(home, b!.key);
      trustHook(home, a!.key, a!.hash);
      const after = readFileSync(join(home, 'config.toml'), 'utf8');
      expect(after.startsWith(original)).toBe(true);
      expect(after.slice(original.length)).toBe(
        `\n[hooks.state.${JSON.stringify(a!.key)}]\ntrusted_hash = "${a!.hash}"\n\n[hooks.state.${JSON.stringify(b!.key)}]\nenabled = false\n`,
      );
    },
  );

  it('updates an existing entry in place', () => {
    const key = '/x/hooks.json:stop:0:0';
    const text = `# my config\nmodel = "m" # keep\n\n[hooks.state."${key}"]\ntrusted_hash = "sha256:old" # note\n\n# trailing comment\n[other]\nx = 1\n`;
    const { home } = setup(text);
    trustHook(home, key, `sha256:${'a'.repeat(64)}`);
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toBe(
      text.replace('"sha256:old" # note', `"sha256:${'a'.repeat(64)}"`),
    );
  });

  it('trustProject loads the project layer; untrusted projects are reported as skipped', () => {
    const { home } = setup();
    const repo = mkdtempSync(join(tmpdir(), 'hc-repo-'));
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, '.zerotwo'));
    mkdirSync(join(repo, 'sub', 'dir'), { recursive: true });
    writeFileSync(
      join(repo, '.zerotwo', 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo p' }] }] } }),
    );
    let d = discover(home, { cwd: join(repo, 'sub', 'dir') });
    expect(d.hooks.filter((h) => h.layer === 'project')).toHaveLength(0);
    expect(d.skipped).toEqual([expect.objectContaining({ layer: 'project', path: join(repo, '.zerotwo') })]);
    expect(d.skipped[0]!.reason).toContain('not trusted');
    expect(d.hooks.filter((h) => h.layer === 'user')).toHaveLength(2);
    trustProject(home, repo);
    d = discover(home, { cwd: join(repo, 'sub', 'dir') });
    expect(d.hooks.filter((h) => h.layer === 'project')).toHaveLength(1);
    expect(d.skipped).toEqual([]);
  });
});
