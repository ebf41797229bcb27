// zerotwo-hooks CLI: every command against real layer directories, real hooks and a real spool.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runRecordSchema, sha256Hex } from '../support/core';
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

/** A user layer with one PreToolUse hook and an untrusted project layer with one Stop hook. */
function setup() {
  const root = tmp('hc-cli-');
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  const sys = join(root, 'sys');
  for (const d of [home, join(proj, '.git'), join(proj, '.zerotwo'), sys]) mkdirSync(d, { recursive: true });
  writeFileSync(
    join(home, 'hooks.json'),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: emit(0, { decision: 'block', reason: 'no rm' }) }] },
        ],
      },
    }),
  );
  writeFileSync(
    join(proj, '.zerotwo', 'hooks.json'),
    JSON.stringify({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: emit(0, { decision: 'block', reason: 'again' }) }] }] },
    }),
  );
  const loc = [
    '--home',
    home,
    '--system-dir',
    sys,
    '--requirements',
    join(sys, 'requirements.toml'),
    '--project',
    proj,
  ];
  const preKey = `${join(home, 'hooks.json')}:pre_tool_use:0:0`;
  return { root, home, proj, sys, loc, preKey };
}

describe('zerotwo-hooks', () => {
  it('list shows hooks with status, key and hash, and skipped sources with their reason', async () => {
    const s = setup();
    const text = await cli(['list', ...s.loc]);
    expect(text.code).toBe(EXIT.OK);
    expect(text.out).toContain(`untrusted  PreToolUse`);
    expect(text.out).toContain(s.preKey);
    expect(text.out).toMatch(/skipped project .*is not trusted/);
    const json = JSON.parse((await cli(['list', '--json', ...s.loc])).out);
    expect(json.hooks[0]).toMatchObject({ key: s.preKey, trust: 'untrusted', hash: expect.stringMatching(/^sha256:/) });
  });

  it('trust → explain → dispatch runs it and prints {event, outcome, runs, warnings}; records go to the spool', async () => {
    const s = setup();
    expect((await cli(['explain', 'PreToolUse', '--tool', 'Bash', ...s.loc])).out).toContain(
      `SKIP ${s.preKey}  (untrusted)`,
    );
    expect((await cli(['trust', s.preKey, ...s.loc])).code).toBe(EXIT.OK);
    expect((await cli(['explain', 'PreToolUse', '--tool', 'Bash', ...s.loc])).out).toContain(`RUN  ${s.preKey}`);
    const ex = JSON.parse((await cli(['explain', 'PreToolUse', '--tool', 'Write', '--json', ...s.loc])).out);
    expect(ex.hooks[0]).toMatchObject({ wouldRun: false, reason: 'matcher_not_matched' });
    const spool = join(s.root, 'spool');
    const input = JSON.stringify({
      session_id: 's1',
      cwd: s.proj,
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
    });
    const r = await cli(['dispatch', 'PreToolUse', ...s.loc, '--spool', spool, '--policy-revision', 'rev-3'], input);
    expect(r.code).toBe(EXIT.OK);
    const res = JSON.parse(r.out);
    expect(Object.keys(res)).toEqual(['event', 'outcome', 'runs', 'warnings']);
    expect(res.outcome).toMatchObject({ decision: 'deny', reason: 'no rm' });
    expect(res.runs[0]).toMatchObject({ status: 'ran', seq: 1, policy: { revision: 'rev-3' } });
    expect(readdirSync(spool)).toContain('seg-000000000001.ndjson.open');
  });

  it('--no-default-redact: only --redact patterns apply to spooled excerpts; the last of the pair wins', async () => {
    const s = setup();
    const noisy = emit(0, 'token=abc123secret ghp_abcdefghijklmnopqrstuvwxyz0123 MYCORP-1234');
    writeFileSync(
      join(s.home, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: noisy }] }] } }),
    );
    const input = JSON.stringify({ session_id: 's1', cwd: s.proj, tool_name: 'Bash', tool_input: { command: 'x' } });
    // The spooled NDJSON of one dispatch with extra options.
    const spooled = async (...opts: string[]): Promise<string> => {
      const spool = join(tmp('hc-cli-spool-'), 'spool');
      const args = ['dispatch', 'PreToolUse', ...s.loc, '--dangerously-bypass-hook-trust', '--spool', spool];
      expect((await cli([...args, '--redact', 'MYCORP-\\d+', ...opts], input)).code).toBe(EXIT.OK);
      return readdirSync(spool)
        .filter((n) => n.startsWith('seg-'))
        .map((n) => readFileSync(join(spool, n), 'utf8'))
        .join('');
    };
    const custom = await spooled('--no-default-redact');
    expect(custom).toContain('[REDACTED]');
    expect(custom).not.toContain('MYCORP-1234');
    expect(custom).toContain('token=abc123secret');
    expect(custom).toContain('ghp_abcdefghijklmnopqrstuvwxyz0123');
    for (const opts of [[], ['--default-redact'], ['--no-default-redact', '--default-redact']]) {
      const both = await spooled(...opts);
      expect(both).toContain('[REDACTED]');
      expect(both).not.toMatch(/MYCORP-1234|abc123secret|ghp_abc/);
    }
    expect(await spooled('--default-redact', '--no-default-redact')).toContain('abc123secret');
  });

  it('trust --all, trust-project, disable and enable persist in the user config.toml only', async () => {
    const s = setup();
    expect((await cli(['trust-project', s.proj, ...s.loc])).out).toContain(`trusted project ${resolve(s.proj)}`);
    const all = await cli(['trust', '--all', ...s.loc]);
    expect(all.out.trim().split('\n')).toHaveLength(2);
    const r = await cli(['dispatch', 'Stop', ...s.loc], JSON.stringify({ cwd: s.proj, session_id: 's' }));
    expect(JSON.parse(r.out).outcome.continuation).toMatch(
      /^<hook_prompt hook_run_id="stop:1:[^"]+">again<\/hook_prompt>$/,
    );
    await cli(['disable', s.preKey, ...s.loc]);
    const ex = JSON.parse((await cli(['explain', 'PreToolUse', '--tool', 'Bash', '--json', ...s.loc])).out);
    expect(ex.hooks[0].reason).toBe('disabled');
    await cli(['enable', s.preKey, ...s.loc]);
    expect((await cli(['explain', 'PreToolUse', '--tool', 'Bash', ...s.loc])).out).toContain(`RUN  ${s.preKey}`);
    const cfg = readFileSync(join(s.home, 'config.toml'), 'utf8');
    expect(cfg).toContain('trust_level = "trusted"');
    expect(readdirSync(join(s.proj, '.zerotwo'))).toEqual(['hooks.json']);
  });

  it('--dangerously-bypass-hook-trust runs untrusted hooks for that invocation only', async () => {
    const s = setup();
    const input = JSON.stringify({ cwd: s.root, tool_name: 'Bash', tool_input: { command: 'x' } });
    expect(JSON.parse((await cli(['dispatch', 'PreToolUse', ...s.loc], input)).out).outcome.decision).toBeUndefined();
    const b = JSON.parse(
      (await cli(['dispatch', 'PreToolUse', ...s.loc, '--dangerously-bypass-hook-trust'], input)).out,
    );
    expect(b.outcome.decision).toBe('deny');
    const again = JSON.parse((await cli(['dispatch', 'PreToolUse', ...s.loc], input)).out);
    expect(again.runs[0].skipReason).toBe('untrusted');
  });

  it('exit codes: unknown key and lint errors → 2; bad usage, unknown event, bad stdin → 1', async () => {
    const s = setup();
    expect((await cli(['trust', 'nope', ...s.loc])).code).toBe(EXIT.CONFIG);
    const bad = join(s.root, 'bad.json');
    writeFileSync(bad, '{"hooks": {"PreToolUse": [ { "matcher": "(", "hooks": [] } ] ');
    const lint = await cli(['lint', bad]);
    expect(lint.code).toBe(EXIT.CONFIG);
    expect(lint.out).toMatch(/bad\.json:\d+:\d+/);
    expect((await cli(['lint', join(s.home, 'hooks.json')])).code).toBe(EXIT.OK);
    expect((await cli(['dispatch', 'NotAnEvent', ...s.loc], '{}')).code).toBe(EXIT.USAGE);
    expect((await cli(['dispatch', 'Stop', ...s.loc], '{oops')).code).toBe(EXIT.USAGE);
    expect((await cli(['no-such-command'])).code).toBe(EXIT.USAGE);
    writeFileSync(join(s.sys, 'requirements.toml'), 'allow_managed_hooks_only = "yes"\n[hooks\n');
    const failClosed = await cli(['list', ...s.loc]);
    expect(failClosed.code).toBe(EXIT.CONFIG);
    expect(failClosed.out).toContain('hooks: off');
  });
});

describe('the built zerotwo-hooks binary', () => {
  const repo = resolve(__dirname, '../../../..');
  beforeAll(() => {
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: repo, stdio: 'ignore' });
  }, 120_000);
  it('dispatch through the real process: stdin in, one JSON object out, exit 0', () => {
    const s = setup();
    const r = spawnSync(
      process.execPath,
      [
        join(repo, 'libs/hook-core/dist/cli/main.js'),
        'dispatch',
        'PreToolUse',
        ...s.loc,
        '--dangerously-bypass-hook-trust',
      ],
      { input: JSON.stringify({ cwd: s.root, tool_name: 'Bash', tool_input: { command: 'x' } }), encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).outcome.decision).toBe('deny');
  });

  it('concurrent dispatch processes on one spool keep one gap-free hash chain', async () => {
    const s = setup();
    const spool = join(s.root, 'spool');
    const input = JSON.stringify({ cwd: s.root, session_id: 'c', tool_name: 'Bash', tool_input: { command: 'x' } });
    const one = () =>
      new Promise<void>((res, rej) => {
        const child = execFile(
          process.execPath,
          [
            join(repo, 'libs/hook-core/dist/cli/main.js'),
            'dispatch',
            'PreToolUse',
            ...s.loc,
            '--spool',
            spool,
            '--dangerously-bypass-hook-trust',
          ],
          (err: Error | null) => (err ? rej(err) : res()),
        );
        child.stdin!.end(input);
      });
    await Promise.all(Array.from({ length: 8 }, one));
    const lines = readdirSync(spool)
      .filter((n) => n.startsWith('seg-'))
      .sort()
      .flatMap((n) => readFileSync(join(spool, n), 'utf8').split('\n').filter(Boolean));
    const recs = lines.map((l) => runRecordSchema.parse(JSON.parse(l)));
    expect(recs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    recs.forEach((r, i) => expect(r.prevHash).toBe(i === 0 ? null : sha256Hex(lines[i - 1]!)));
  });
});
