// Issue 27 §1: the shadow layer's hooks run in observe mode beside the enforced ones: their outcome is recorded as
// "would have …" with the release id and never applied; a hanging, crashing or failing shadow hook changes nothing
// for the developer and is killed at the budget (enforced hooks done + grace). Fixtures are real scripts.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHADOW_GRACE_MS,
  dispatch,
  LAYER_DIR_NAME,
  MAX_SHADOW_GRACE_MS,
  LAYER_STATE_FILE,
  runRecordDraftSchema,
  shadowRequirementsPath,
  SHADOW_RELEASE_FILE,
  wouldHave,
  type RunRecordDraft,
} from '../support/core';
import { bashInput, discovery, emit, fx, hook, tmp } from './support';

const BIN = resolve(__dirname, '../../bin/zerotwo-hooks.cjs');

const DENY = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'shadow says no',
  },
};
const REWRITE = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'allow',
    updatedInput: { command: 'echo rewritten' },
  },
};

/** A shadow layer on disk: <root>/shadow/requirements.toml with one PreToolUse group per command, and its release file. */
function shadowLayer(
  commands: string[],
  releaseId: string | null = 'rel-1',
  release: Record<string, unknown> = {},
): { root: string; req: string } {
  const root = tmp('hc-shadow-');
  const req = shadowRequirementsPath(join(root, 'requirements.toml'));
  mkdirSync(join(root, 'shadow'), { recursive: true });
  const groups = commands.flatMap((c) => [
    '[[hooks.PreToolUse]]',
    'matcher = "^Bash$"',
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = ${JSON.stringify(c)}`,
    'timeout = 30',
  ]);
  writeFileSync(req, ['[hooks]', ...groups, ''].join('\n'));
  if (releaseId !== null)
    writeFileSync(join(root, 'shadow', SHADOW_RELEASE_FILE), JSON.stringify({ releaseId, version: 'v2', ...release }));
  return { root, req };
}

/** A sink keeping what is written. */
function memorySink(): { records: RunRecordDraft[]; write(r: RunRecordDraft[]): Promise<void> } {
  const records: RunRecordDraft[] = [];
  return {
    records,
    write: (r) => {
      records.push(...r);
      return Promise.resolve();
    },
  };
}

describe('shadow layer (observe mode)', () => {
  it('records a shadow deny as "would deny" with the release id and applies nothing', async () => {
    const { req } = shadowLayer([emit(0, DENY)]);
    const sink = memorySink();
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, ''))]),
      shadow: { requirementsPath: req },
      sink,
    });
    expect(r.outcome.decision).toBeUndefined();
    expect(r.outcome.failures).toBe(0);
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0]!.shadow).toBeUndefined();
    expect(r.shadow?.outcome.decision).toBe('deny');
    expect(r.shadow?.runs).toHaveLength(1);
    const s = r.shadow!.runs[0]!;
    expect(s.shadow).toEqual({ releaseId: 'rel-1', version: 'v2', wouldHave: 'deny', killedAtBudget: false });
    expect(s.decision).toBe('deny');
    expect(s.reason).toBe('shadow says no');
    expect(s.dispatchId).toBe(r.runs[0]!.dispatchId);
    expect(s.hook.sourceFile).toBe(req);
    // Both records reach the sink, and the shadow one is a valid run record.
    expect(sink.records.map((x) => x.shadow?.wouldHave ?? 'enforced')).toEqual(['enforced', 'deny']);
    expect(runRecordDraftSchema.parse(s).shadow?.releaseId).toBe('rel-1');
  });

  it('keeps the enforced deny when a shadow hook would allow, and never applies a shadow rewrite', async () => {
    const { req } = shadowLayer([emit(0, REWRITE)]);
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, DENY))]),
      shadow: { requirementsPath: req },
    });
    expect(r.outcome.decision).toBe('deny');
    expect(r.outcome.updatedInput).toBeUndefined();
    expect(r.shadow?.runs[0]!.shadow?.wouldHave).toBe('rewrite');
  });

  it('kills a hanging shadow hook at the budget; the enforced outcome is unchanged', async () => {
    const { req } = shadowLayer([`${fx('sleep-then.sh')} 30 late`, emit(0, DENY)]);
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, DENY))]),
      shadow: { requirementsPath: req, graceMs: 50 },
    });
    expect(r.outcome.decision).toBe('deny');
    const [hang, deny] = r.shadow!.runs;
    expect(hang!.status).toBe('timed_out');
    expect(hang!.shadow).toMatchObject({ wouldHave: 'timeout', killedAtBudget: true });
    expect(hang!.error).toMatch(/shadow budget \(50 ms/);
    expect(hang!.durationMs!).toBeLessThan(30_000);
    expect(deny!.shadow).toMatchObject({ wouldHave: 'deny', killedAtBudget: false });
  });

  it("gives the shadow hooks the release's budget from shadow-release.json; an out-of-bounds one is the default", async () => {
    // 400 ms after a quick enforced hook: within a 3 s budget, past the default 100 ms.
    const slow = `${fx('sleep-then.sh')} 0.4 ''`;
    const within = shadowLayer([slow], 'rel-b', { budgetMs: 3000 });
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, ''))]),
      shadow: { requirementsPath: within.req },
    });
    expect(r.shadow!.runs[0]!.shadow).toMatchObject({ wouldHave: 'continue', killedAtBudget: false });
    for (const budgetMs of [MAX_SHADOW_GRACE_MS + 1, -1, 2.5, '3000']) {
      const { req } = shadowLayer([slow], 'rel-b', { budgetMs });
      const d = await dispatch('PreToolUse', bashInput(), {
        discovery: discovery([hook('PreToolUse', emit(0, ''))]),
        shadow: { requirementsPath: req },
      });
      expect(d.shadow!.runs[0]!.shadow, String(budgetMs)).toMatchObject({ wouldHave: 'timeout', killedAtBudget: true });
      expect(d.shadow!.runs[0]!.error).toMatch(new RegExp(`shadow budget \\(${DEFAULT_SHADOW_GRACE_MS} ms`));
    }
  });

  it('kills the whole process group of a hanging shadow hook (grandchild, SIGTERM ignored) at the budget', async () => {
    const dir = tmp('hc-shadow-gc-');
    const pidFile = join(dir, 'gc.pid');
    const { req } = shadowLayer([`${fx('spawn-grandchild.sh')} ${pidFile}`, fx('ignore-term.sh')]);
    // The enforced hook waits for the grandchild's pid file, so the grandchild exists before the budget starts.
    const waitPid = `i=0; while [ ! -s ${pidFile} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`;
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', waitPid)]),
      shadow: { requirementsPath: req, graceMs: 50 },
    });
    expect(r.outcome.decision).toBeUndefined();
    expect(r.shadow!.runs.map((x) => [x.status, x.shadow!.killedAtBudget])).toEqual([
      ['timed_out', true],
      ['timed_out', true],
    ]);
    const gc = Number(readFileSync(pidFile, 'utf8').trim());
    const alive = (): boolean => {
      try {
        process.kill(gc, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 10_000;
    while (alive() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    expect(alive()).toBe(false);
  });

  it('a crashing or missing shadow hook is an error record and changes nothing', async () => {
    const { req } = shadowLayer([emit(1, 'not json', 'boom'), '/nonexistent/hook.sh', emit(0, 'garbage{')]);
    const enforced = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, ''))]),
      shadow: false,
    });
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([hook('PreToolUse', emit(0, ''))]),
      shadow: { requirementsPath: req },
    });
    expect(r.outcome).toEqual(enforced.outcome);
    expect(r.shadow!.runs.map((x) => x.shadow!.wouldHave)).toEqual(['error', 'error', 'continue']);
  });

  it('runs shadow hooks even when no enforced hook matches, and stamps a null release id when unnamed', async () => {
    const { req } = shadowLayer([emit(0, DENY)], null);
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([]),
      shadow: { requirementsPath: req },
    });
    expect(r.runs).toHaveLength(0);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.shadow?.runs[0]!.shadow).toMatchObject({ releaseId: null, wouldHave: 'deny' });
  });

  it('does not run a shadow layer whose gate says it is switching, or that fails closed; says so', async () => {
    const { root, req } = shadowLayer([emit(0, DENY)]);
    const gateDir = join(root, 'shadow', LAYER_DIR_NAME);
    mkdirSync(gateDir, { recursive: true });
    writeFileSync(
      join(gateDir, LAYER_STATE_FILE),
      JSON.stringify({
        state: 'switching',
        version: 'v3',
        from: 'v2',
        requirementsSha256: '',
        managedDir: null,
        files: [],
      }),
    );
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([]),
      shadow: { requirementsPath: req },
    });
    expect(r.shadow).toBeUndefined();
    expect(r.warnings.some((w) => w.startsWith('shadow layer not run: the agent is switching'))).toBe(true);
    // A stable gate whose digest matches lets it run.
    const text = readFileSync(req, 'utf8');
    writeFileSync(
      join(gateDir, LAYER_STATE_FILE),
      JSON.stringify({
        state: 'stable',
        version: 'v3',
        from: null,
        requirementsSha256: createHash('sha256').update(text).digest('hex'),
        managedDir: null,
        files: [],
      }),
    );
    const ok = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([]),
      shadow: { requirementsPath: req },
    });
    expect(ok.shadow?.runs).toHaveLength(1);
    writeFileSync(req, '[hooks\nbroken');
    const bad = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([]),
      shadow: { requirementsPath: req },
    });
    expect(bad.shadow).toBeUndefined();
    expect(bad.warnings.some((w) => w.startsWith('shadow layer not run:'))).toBe(true);
  });

  it('runs nothing in the shadow layer when hooks are off', async () => {
    const { req } = shadowLayer([emit(0, DENY)]);
    const r = await dispatch('PreToolUse', bashInput(), {
      discovery: discovery([], { hooksEnabled: false, featureReason: 'off' }),
      shadow: { requirementsPath: req },
    });
    expect(r.shadow).toBeUndefined();
  });

  it('names what a shadow effect would have done', () => {
    expect(wouldHave('none', 'ran')).toBe('continue');
    expect(wouldHave('deny', 'ran')).toBe('deny');
    expect(wouldHave('failed', 'failed')).toBe('error');
    expect(wouldHave('none', 'timed_out')).toBe('timeout');
    expect(wouldHave('context', 'ran')).toBe('context');
  });
});

describe('zerotwo-hooks dispatch with a shadow layer beside requirements.toml (real process)', () => {
  it('prints and spools the shadow records; the enforced outcome is the one without the shadow layer', async () => {
    const root = tmp('hc-shadow-cli-');
    const sys = join(root, 'etc');
    const home = join(root, 'home');
    const spool = join(root, 'spool');
    for (const d of [sys, home, join(sys, 'shadow')]) mkdirSync(d, { recursive: true });
    const deny = join(sys, 'shadow', 'deny.sh');
    writeFileSync(deny, `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(DENY)}'\n`);
    chmodSync(deny, 0o755);
    writeFileSync(join(sys, 'requirements.toml'), '[hooks]\n');
    writeFileSync(
      join(sys, 'shadow', 'requirements.toml'),
      `[hooks]\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(deny)}\n`,
    );
    writeFileSync(join(sys, 'shadow', SHADOW_RELEASE_FILE), JSON.stringify({ releaseId: 'rel-cli', version: 'v9' }));
    const input = JSON.stringify({
      session_id: 's1',
      cwd: '/',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
    });
    const out = await new Promise<string>((done, fail) => {
      const child = execFile(
        process.execPath,
        [
          BIN,
          'dispatch',
          'PreToolUse',
          '--home',
          home,
          '--system-dir',
          sys,
          '--spool',
          spool,
          '--policy-revision',
          '4',
        ],
        { timeout: 60_000 },
        (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : done(stdout)),
      );
      child.stdin?.end(input);
    });
    const result = JSON.parse(out) as { outcome: { decision?: string }; shadow?: { runs: RunRecordDraft[] } };
    expect(result.outcome.decision).toBeUndefined();
    expect(result.shadow?.runs[0]!.shadow).toMatchObject({ releaseId: 'rel-cli', wouldHave: 'deny' });
    const spooled = readdirSync(spool)
      .filter((f) => f.includes('.ndjson'))
      .map((f) => readFileSync(join(spool, f), 'utf8'))
      .join('');
    const lines = spooled
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RunRecordDraft);
    const shadowLine = lines.find((l) => l.shadow !== undefined)!;
    expect(shadowLine.shadow?.releaseId).toBe('rel-cli');
    // The enforced revision is not stamped on shadow runs (gates count runs by revision).
    expect(shadowLine.policy.revision).toBeNull();
    expect(shadowLine.policy.digest).toMatch(/^sha256:/);
  });
});
