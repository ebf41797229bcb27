// The real-world corpus: every configuration loads, explains and dispatches without a crash; runnable hooks run.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverHooks, dispatch, explain, HOOK_EVENTS, type SpawnFn } from '../support/core';
import { tmp } from './support';
import { CORPUS_DIR, HAS_SHARED } from '../../../../test/support/shared';

const CORPUS = CORPUS_DIR;
const files = (HAS_SHARED ? readdirSync(CORPUS) : []).filter((f) => /\.(json|toml)$/.test(f));
/** Runs `true` in place of the corpus command (the pipeline is real; the third-party scripts are not ours to run). */
const spawnTrue: SpawnFn = (_file, _args, options) => spawn('/bin/sh', ['-c', 'true'], options);
const query = { tool: 'Bash', source: 'startup', trigger: 'auto', agentType: 'worker', reason: 'other' };
const input = {
  session_id: 'corpus',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  source: 'startup',
  trigger: 'auto',
  agent_type: 'worker',
  reason: 'other',
};

describe.skipIf(!HAS_SHARED)('corpus', () => {
  it('has the 67 files', () => expect(files).toHaveLength(67));
  it.each(files)('%s: explain + dispatch every event (bypass trust); each runnable hook runs', async (file) => {
    const root = tmp('hc-corpus-');
    const home = join(root, 'home');
    const sys = join(root, 'sys');
    mkdirSync(home);
    mkdirSync(sys);
    const isReq = /requirements/.test(file);
    if (!isReq) copyFileSync(join(CORPUS, file), join(home, file.endsWith('.toml') ? 'config.toml' : 'hooks.json'));
    const d = discoverHooks({
      home,
      systemDir: sys,
      requirementsPath: isReq ? join(CORPUS, file) : join(sys, 'requirements.toml'),
      cwd: root,
      bypassTrust: true,
    });
    for (const event of HOOK_EVENTS) {
      const ex = explain(d, event, query, { bypassTrust: true });
      for (const h of ex.hooks) expect(h.wouldRun || typeof h.reason === 'string').toBe(true);
      const r = await dispatch(
        event,
        { ...input, cwd: root },
        { discovery: d, bypassTrust: true, runner: { spawn: spawnTrue } },
      );
      const ran = r.runs.filter((x) => x.status === 'ran').map((x) => x.hook.key);
      expect(ran).toEqual(ex.hooks.filter((h) => h.wouldRun).map((h) => h.key));
      expect(r.outcome.failures).toBe(0);
    }
  });
});
