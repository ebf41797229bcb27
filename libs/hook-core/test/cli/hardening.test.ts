// zerotwo-hooks CLI hardening (issue 10 §4–5): usage errors, --version, global options, lint exit codes, no stacks.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, runCli, type CliIo } from '@hookwarden/hook-core/cli';
import { emit, tmp } from '../engine/support';

/** Run the CLI in-process with the given stdin; capture output and exit code. */
async function cli(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { readStdin: () => Promise.resolve(stdin), out: (t) => (out += t), err: (t) => (err += t) };
  const code = await runCli(args, io);
  return { code, out, err };
}

const DENY = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'managed says no',
  },
};

/** A system dir whose requirements.toml denies every Bash command, and an empty user home. */
function managedDeny(): { root: string; home: string; sys: string; loc: string[] } {
  const root = tmp('hc-hard-');
  const home = join(root, 'home');
  const sys = join(root, 'sys');
  mkdirSync(home);
  mkdirSync(sys);
  writeFileSync(
    join(sys, 'requirements.toml'),
    [
      '[features]',
      'hooks = true',
      '[hooks]',
      `managed_dir = ${JSON.stringify(sys)}`,
      '[[hooks.PreToolUse]]',
      'matcher = "^Bash$"',
      '[[hooks.PreToolUse.hooks]]',
      'type = "command"',
      `command = ${JSON.stringify(emit(0, DENY))}`,
      '',
    ].join('\n'),
  );
  return { root, home, sys, loc: ['--home', home, '--system-dir', sys] };
}

const BASH = JSON.stringify({ session_id: 's', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });

/** No stack trace frames in a text. */
const noStack = (text: string): void => expect(text).not.toMatch(/\n\s+at .+[:(]/);

describe('zerotwo-hooks options', () => {
  it('--version prints the package version', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(EXIT.OK);
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(r.out.trim()).toBe(pkg.version);
  });

  it('accepts global options before the subcommand as well as after', async () => {
    const s = managedDeny();
    const before = await cli([...s.loc, 'dispatch', 'PreToolUse'], BASH);
    const after = await cli(['dispatch', 'PreToolUse', ...s.loc], BASH);
    for (const r of [before, after]) {
      expect(r.code).toBe(EXIT.OK);
      expect(JSON.parse(r.out).outcome.decision).toBe('deny');
    }
    const list = await cli(['--home', s.home, `--system-dir=${s.sys}`, 'list', '--json']);
    expect(JSON.parse(list.out).hooks).toHaveLength(1);
  });

  it.each([['abc'], ['-1'], ['1.5'], ['99999999999']])('--max-excerpt-bytes %s is a usage error', async (v) => {
    const s = managedDeny();
    const r = await cli(['dispatch', 'PreToolUse', ...s.loc, '--max-excerpt-bytes', v], BASH);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toContain('--max-excerpt-bytes');
    expect(r.out).toBe('');
    noStack(r.err);
  });

  it("--redact '(' is a usage error on list/explain, named, without a stack trace", async () => {
    const s = managedDeny();
    for (const args of [['list'], ['explain', 'PreToolUse']]) {
      const r = await cli([...args, ...s.loc, '--redact', '(']);
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.err).toMatch(/--redact.*not a valid regular expression/);
      noStack(r.err);
    }
  });

  it("dispatch --redact '(' still runs the managed hooks (deny kept), warns, and records no excerpt", async () => {
    const s = managedDeny();
    const r = await cli(['dispatch', 'PreToolUse', ...s.loc, '--redact', '(', '--capture', 'excerpts'], BASH);
    expect(r.code).toBe(EXIT.OK);
    const res = JSON.parse(r.out);
    expect(res.outcome.decision).toBe('deny');
    expect(res.warnings.join('\n')).toMatch(/invalid redaction pattern "\("/);
    expect(r.err).toMatch(/warning: invalid redaction pattern/);
    expect(res.runs[0].stdout.excerpt).toBeUndefined();
    expect(res.runs[0].stdout.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a bypass of hook trust prints a warning (stderr for dispatch, and in the listing)', async () => {
    const s = managedDeny();
    writeFileSync(
      join(s.home, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: emit(0, '') }] }] } }),
    );
    const d = await cli(['dispatch', 'PreToolUse', ...s.loc, '--dangerously-bypass-hook-trust'], BASH);
    expect(d.err).toMatch(/warning: .*hook trust is bypassed.*1 new or changed hook/);
    expect(JSON.parse(d.out).runs.map((x: { status: string }) => x.status)).toEqual(['ran', 'ran']);
    const l = await cli(['list', ...s.loc, '--dangerously-bypass-hook-trust']);
    expect(l.out).toMatch(/warning: hook trust is bypassed/);
  });
});

describe('no stack traces, whatever the home holds', () => {
  it.each(['file', 'symlink loop', 'config.toml a directory'])('home that is a %s', async (kind) => {
    const s = managedDeny();
    let home = join(s.root, 'h');
    if (kind === 'file') writeFileSync(home, 'x');
    else if (kind === 'symlink loop') {
      symlinkSync(join(s.root, 'l2'), join(s.root, 'l1'));
      symlinkSync(join(s.root, 'l1'), join(s.root, 'l2'));
      home = join(s.root, 'l1');
    } else mkdirSync(join(home, 'config.toml'), { recursive: true });
    const loc = ['--home', home, '--system-dir', s.sys];
    const d = await cli(['dispatch', 'PreToolUse', ...loc], BASH);
    expect(d.code).toBe(EXIT.OK);
    expect(JSON.parse(d.out).outcome.decision).toBe('deny');
    for (const args of [['list'], ['explain', 'PreToolUse'], ['trust', '--all'], ['trust-project', s.root]]) {
      const r = await cli([...args, ...loc]);
      noStack(r.err);
      expect(r.err).not.toContain('internal error');
      if (args[0]?.startsWith('trust') && kind !== 'config.toml a directory') {
        expect(r.code).toBe(EXIT.CONFIG);
        expect(r.err).toMatch(/cannot update the trust store/);
      }
    }
  });
});

describe('lint fails on anything that stops a configured hook from running', () => {
  const cases: Record<string, unknown> = {
    'bad timeout': { PreToolUse: [{ hooks: [{ type: 'command', command: 'a', timeout: 'soon' }] }] },
    'negative timeout': { PreToolUse: [{ hooks: [{ type: 'command', command: 'a', timeout: -1 }] }] },
    'bad type': { PreToolUse: [{ hooks: [{ type: 'shell', command: 'a' }] }] },
    'missing command': { PreToolUse: [{ hooks: [{ type: 'command' }] }] },
    'empty command': { PreToolUse: [{ hooks: [{ type: 'command', command: '  ' }] }] },
    'invalid matcher': { PreToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'a' }] }] },
    'look-around matcher': { PreToolUse: [{ matcher: '(?=Bash)', hooks: [{ type: 'command', command: 'a' }] }] },
    'event not a list': { PreToolUse: 'nope' },
    'group without hooks': { PreToolUse: [{ matcher: 'Bash' }] },
    'unknown event': { PreToolUSE: [{ hooks: [{ type: 'command', command: 'a' }] }] },
  };
  it.each(Object.keys(cases))('%s → exit 2 with a located error', async (name) => {
    const dir = tmp('hc-lint-');
    const file = join(dir, 'hooks.json');
    writeFileSync(file, JSON.stringify({ hooks: cases[name] }, null, 2));
    const r = await cli(['lint', file]);
    expect(r.code).toBe(EXIT.CONFIG);
    expect(r.out).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ .*: error \\[`));
    const json = JSON.parse((await cli(['lint', file, '--json'])).out);
    expect(json.errors.length).toBeGreaterThan(0);
  });

  it('the same in config.toml; a clean file exits 0', async () => {
    const dir = tmp('hc-lint-');
    const bad = join(dir, 'config.toml');
    writeFileSync(
      bad,
      '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "a"\ntimeout = 1.5\n',
    );
    expect((await cli(['lint', bad])).code).toBe(EXIT.CONFIG);
    const good = join(dir, 'hooks.json');
    writeFileSync(good, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }] }] } }));
    expect((await cli(['lint', good])).code).toBe(EXIT.OK);
  });

  it('--help documents the exit codes', async () => {
    const top = await cli(['--help']);
    expect(top.out).toMatch(/Exit codes:[\s\S]*0 {2}success[\s\S]*1 {2}usage[\s\S]*2 {2}configuration error/);
    const lint = await cli(['lint', '--help']);
    expect(lint.out).toMatch(/Exit codes:[\s\S]*2 {2}the file has errors/);
  });
});
