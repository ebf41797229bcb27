// Windows locations computed on any platform: the system root stays drive-correct, %ProgramData% defaults, and the
// engine shows the command it runs on Windows (command_windows).
import { describe, expect, it } from 'vitest';
import { discoverHooks } from '@hookwarden/hook-core';
import { renderList } from '@hookwarden/hook-core/cli';
import { SYSTEM_ROOT, absoluteDir, defaultStateDir } from '../../apps/agent-sync/src/cli/options';
import { Layer, requirementsPathFor } from '../../apps/agent-sync/src/materialize/layer';

describe('agent locations on Windows', () => {
  it('the default --root is the system root, not the current drive', () => {
    // path.resolve('/') on Windows is the current drive (D:\ when the working directory is on D:).
    expect(absoluteDir('/')).toBe(SYSTEM_ROOT);
    expect(absoluteDir('rel/dir')).toBe(`${process.cwd()}/rel/dir`);
  });

  it('requirements.toml and the state directory come from %ProgramData% with its own drive', () => {
    const env = { ProgramData: 'D:\\ProgramData' };
    expect(requirementsPathFor('/', 'win32', env)).toBe('D:\\ProgramData\\ZeroTwo\\requirements.toml');
    expect(requirementsPathFor('/', 'win32', {})).toBe('C:\\ProgramData\\ZeroTwo\\requirements.toml');
    expect(requirementsPathFor('E:\\hw\\root', 'win32', env)).toBe(
      'E:\\hw\\root\\ProgramData\\ZeroTwo\\requirements.toml',
    );
    expect(defaultStateDir('win32', env)).toBe('D:\\ProgramData\\Hookwarden\\agent');
    expect(requirementsPathFor('/', 'linux')).toBe('/etc/zerotwo/requirements.toml');
    expect(defaultStateDir('linux')).toBe('/var/lib/hookwarden-agent');
  });

  it('a policy path is used as written under the system root and prefixed under a test root', () => {
    expect(new Layer({ root: '/' }).rooted('/opt/hw')).toBe('/opt/hw');
    expect(new Layer({ root: '/tmp/r' }).rooted('C:\\x')).toBe('/tmp/r/\\x');
    expect(new Layer({ root: '/tmp/r' }).rooted('/opt/hw')).toBe('/tmp/r/opt/hw');
  });
});

describe('the engine on Windows', () => {
  const hooks = {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '/opt/hw/check.sh', command_windows: 'C:\\hw\\check.cmd' }],
      },
    ],
  };
  const discovery = (platform: NodeJS.Platform) =>
    discoverHooks({
      platform,
      requirementsPath: null,
      home: '/nonexistent-home',
      systemDir: '/nonexistent-sys',
      sessionHooks: hooks,
      bypassTrust: true,
      env: {},
    });

  it('list shows command_windows on win32 and command elsewhere', () => {
    expect(renderList(discovery('win32'), 'win32')).toContain('C:\\hw\\check.cmd');
    expect(renderList(discovery('win32'), 'win32')).not.toContain('/opt/hw/check.sh');
    expect(renderList(discovery('linux'), 'linux')).toContain('/opt/hw/check.sh');
  });
});
