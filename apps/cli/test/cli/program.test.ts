// The command tree: every command documents examples in --help; option parsers; completion scripts.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { Command as Program } from 'commander';
import { buildProgram, COMMAND_GROUPS } from '../../src/cli/program';
import { parseDuration, parseRate, parseRings } from '../../src/cli/parse';
import { problemsFrom } from '../../src/client/api-client';
import { formatProblem } from '../../src/cli/errors';

// Every command below the root, with its full name.
function all(cmd: Command, prefix = ''): Array<[string, Command]> {
  return cmd.commands.flatMap((c) => {
    const name = `${prefix}${c.name()}`;
    return [[name, c] as [string, Command], ...all(c, `${name} `)];
  });
}

// The complete --help output of a command (including text added after it).
function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

describe('program', () => {
  it('every command has a description and examples in its --help', () => {
    const commands = all(buildProgram());
    expect(commands.length).toBeGreaterThan(60);
    for (const [name, cmd] of commands) {
      expect(cmd.description(), name).not.toBe('');
      expect(helpOf(cmd), name).toMatch(/Examples:\n {2}\$ .*hookwarden/);
    }
  });

  it('loads each command group by the names its module registers, and only the groups a command line names', () => {
    const registered = COMMAND_GROUPS.map((g) => {
      const p = new Program('x');
      g.load()(p);
      return p.commands.flatMap((c) => [c.name(), ...c.aliases()]);
    });
    expect(registered).toEqual(COMMAND_GROUPS.map((g) => [...g.names]));
    const top = (args: string[]) => buildProgram(true, args).commands.map((c) => c.name());
    expect(top(['groups', 'list'])).toEqual(['groups']);
    expect(top(['-o', 'json', 'group', 'get', 'x'])).toEqual(['groups']);
    expect(top(['plan', '-f', 'dir'])).toEqual(['plan', 'apply', 'validate', 'export']);
    // No command named (help, an unknown command's suggestion) or completion: every group.
    expect(top(['--help'])).toEqual(buildProgram().commands.map((c) => c.name()));
    expect(top(['completion', 'bash'])).toHaveLength(buildProgram().commands.length);
  });

  it('parses durations, rates and rings, naming the option on error', () => {
    expect(parseDuration('90', 'x')).toBe(90);
    expect(parseDuration('1h30m', 'x')).toBe(5400);
    expect(parseDuration('2d', 'x')).toBe(172_800);
    expect(() => parseDuration('5 minutes', '--interval')).toThrow(/--interval: invalid duration/);
    expect(parseRate('5%', 'r')).toBe(0.05);
    expect(parseRate('0.2', 'r')).toBe(0.2);
    expect(() => parseRate('120%', '--max')).toThrow(/--max/);
    expect(parseRings('5,25,100', 'r')).toEqual([5, 25, 100]);
    expect(() => parseRings('5,x', '--rings')).toThrow(/--rings/);
  });

  it('renders API error details with their locations', () => {
    const problems = problemsFrom([
      { severity: 'error', code: 'toml_syntax', message: 'bad value', line: 3, column: 7, field: '$.toml' },
      { message: 'unknown event', path: '$.hooks.Nope', field: '$.policy.hooks.Nope', code: 'unknown_event' },
    ]);
    expect(problems.map(formatProblem)).toEqual([
      'line 3, column 7 (field $.toml): bad value [toml_syntax]',
      '$.hooks.Nope (field $.policy.hooks.Nope): unknown event [unknown_event]',
    ]);
    expect(
      problemsFrom({
        reason: 'stale_base',
        currentVersion: { number: 4, digest: 'sha256:ab', authorName: 'bob', createdAt: 't' },
      }).map(formatProblem),
    ).toEqual(["the server's latest version is 4 (sha256:ab), by bob at t [stale_base]"]);
  });

  it('generates bash, zsh and fish completion covering every command', async () => {
    const { spawnSync } = await import('node:child_process');
    const path = await import('node:path');
    const bin = path.resolve(__dirname, '../../bin/hookwarden.js');
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = spawnSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('rollout');
      expect(r.stdout).toContain('enrollment-secrets');
    }
    const bash = spawnSync(process.execPath, [bin, 'completion', 'bash'], { encoding: 'utf8' }).stdout;
    const check = spawnSync('bash', ['-n'], { input: bash, encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    const complete = spawnSync(
      'bash',
      ['-c', `${bash}\nCOMP_WORDS=(hookwarden rollout w); COMP_CWORD=2; _hookwarden; echo "\${COMPREPLY[@]}"`],
      { encoding: 'utf8' },
    );
    expect(complete.stdout.trim()).toBe('watch');
  });
});
