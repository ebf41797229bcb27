// Issue 10 §5: where the model sees it, dispatch matches the reference engine (hook_run_id numbering, Command: suffix).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverHooks, dispatch } from '../support/core';
import { emit, fx, tmp } from './support';

/** Discovery over a user hooks.json (and an optional requirements.toml), trust bypassed. */
function discoverWith(hooksJson: unknown, requirements?: string) {
  const root = tmp('hc-ref-');
  const home = join(root, 'home');
  const sys = join(root, 'sys');
  mkdirSync(home);
  mkdirSync(sys);
  writeFileSync(join(home, 'hooks.json'), JSON.stringify(hooksJson));
  if (requirements !== undefined) writeFileSync(join(sys, 'requirements.toml'), requirements);
  const d = discoverHooks({ home, systemDir: sys, env: {}, bypassTrust: true });
  return { d, file: join(home, 'hooks.json'), root };
}

const block = (reason: string): string => emit(0, { decision: 'block', reason });

describe('continuation hook_run_id uses the reference numbering', () => {
  it('a lone Stop hook is stop:0:<file>', async () => {
    const { d, file } = discoverWith({ hooks: { Stop: [{ hooks: [{ type: 'command', command: block('again') }] }] } });
    const r = await dispatch('Stop', { session_id: 's' }, { discovery: d, bypassTrust: true });
    expect(r.outcome.continuation).toBe(`<hook_prompt hook_run_id="stop:0:${file}">again</hook_prompt>`);
  });

  it('stop:2 when the file also has two UserPromptSubmit hooks, even written after Stop (engine event order)', async () => {
    const { d, file } = discoverWith({
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: block('again') }] }],
        UserPromptSubmit: [
          {
            hooks: [
              { type: 'command', command: 'true' },
              { type: 'command', command: 'true' },
            ],
          },
        ],
      },
    });
    const r = await dispatch('Stop', { session_id: 's' }, { discovery: d, bypassTrust: true });
    expect(r.outcome.continuation).toBe(`<hook_prompt hook_run_id="stop:2:${file}">again</hook_prompt>`);
  });

  it('counts over the whole list: managed hooks first, prompt handlers not numbered, positions of both Stop hooks', async () => {
    const { d, file } = discoverWith(
      {
        hooks: {
          Stop: [
            {
              hooks: [
                { type: 'prompt', prompt: 'p' },
                { type: 'command', command: block('first') },
              ],
            },
            { hooks: [{ type: 'command', command: block('second') }] },
          ],
          PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }],
        },
      },
      '[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "/opt/h/a.sh"\n',
    );
    // Reference list: managed SessionStart (0), then the user file: PreToolUse (1), Stop (2, 3).
    expect(d.hooks.map((h) => [h.event, h.displayOrder])).toEqual([
      ['SessionStart', 0],
      ['Stop', undefined],
      ['Stop', 2],
      ['Stop', 3],
      ['PreToolUse', 1],
    ]);
    const r = await dispatch('Stop', { session_id: 's' }, { discovery: d, bypassTrust: true });
    expect(r.outcome.continuation).toBe(
      `<hook_prompt hook_run_id="stop:2:${file}">first</hook_prompt>\n<hook_prompt hook_run_id="stop:3:${file}">second</hook_prompt>`,
    );
  });
});

describe('unified exec input', () => {
  it("exec_command's tool_input.cmd reaches hooks as command, and the block message keeps its Command: suffix", async () => {
    const out = join(tmp('hc-ref-out-'), 'stdin.json');
    const { d } = discoverWith({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: `${fx('echo-stdin.sh')} > ${out}` },
              { type: 'command', command: emit(2, '', 'no deletes') },
            ],
          },
        ],
      },
    });
    const r = await dispatch(
      'PreToolUse',
      { session_id: 's', tool_name: 'exec_command', tool_input: { cmd: 'rm -rf build', workdir: '/w' } },
      { discovery: d, bypassTrust: true },
    );
    expect(r.outcome.decision).toBe('deny');
    expect(r.outcome.blockMessage).toBe('Command blocked by PreToolUse hook: no deletes. Command: rm -rf build');
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'rm -rf build', workdir: '/w' } });
    expect(seen.tool_input.cmd).toBeUndefined();
  });
});
