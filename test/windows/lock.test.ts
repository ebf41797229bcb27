// The state directory lock on Windows (Wine): Windows has no /proc and hands a dead process's pid to the next process
// at once, so the holder also listens on a named pipe while it holds the lock, and "its pipe answers" is the liveness
// test. A live holder is refused; a lock naming a live process that is not its holder (a reused pid) is taken over.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../support/agent';
import { describeWine, nodeExe, runWinNode, spawnWine, type WineProcess, winPath } from '../support/wine';

const LOCK = path.resolve(__dirname, '../../apps/agent-sync/dist/state/lock.js');
let tmp: string;
let script: string;
let holder: WineProcess | null = null;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-win-lock-'));
  script = path.join(tmp, 'lock.js');
  // `node lock.js DIR hold` takes the lock, prints "held <pid>" and keeps it; `node lock.js DIR` tries once and
  // prints "acquired" or the refusal.
  writeFileSync(
    script,
    `const { acquireStateLock } = require(${JSON.stringify(winPath(LOCK))});
acquireStateLock(process.argv[2]).then(
  async (lock) => {
    if (process.argv[3] === 'hold') {
      console.log('held ' + process.pid);
      setInterval(() => {}, 1000);
      return;
    }
    console.log('acquired');
    await lock.release();
  },
  (err) => console.log(err.name + ': ' + err.message),
);
`,
  );
});

afterAll(async () => {
  holder?.child.kill('SIGKILL');
  await holder?.exited;
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describeWine('state directory lock on Windows (Wine)', () => {
  it('refuses while the holder lives; a lock naming a live pid whose pipe is gone is stale', async () => {
    const held = path.join(tmp, 'held');
    holder = await spawnWine(await nodeExe(), [winPath(script), winPath(held), 'hold']);
    const pid = Number(
      (await waitFor(() => /held (\d+)/.exec(holder!.stdout())?.[1] ?? null, 120_000, 'the holder to take the lock'))!,
    );
    const refused = await runWinNode(script, [winPath(held)]);
    expect(refused.stdout, refused.stderr).toMatch(new RegExp(`LockHeld: another hookwarden-agent \\(pid ${pid}, `));

    // The same live pid, but the pipe it names does not exist: a reused pid, not a holder.
    const reused = path.join(tmp, 'reused');
    mkdirSync(reused);
    writeFileSync(
      path.join(reused, 'agent.lock'),
      JSON.stringify({
        pid,
        startTime: null,
        pipe: '\\\\.\\pipe\\hookwarden-agent-gone-0000',
        command: 'run',
        acquiredAt: new Date(0).toISOString(),
      }),
    );
    const taken = await runWinNode(script, [winPath(reused)]);
    expect(taken.stdout.trim(), taken.stderr).toBe('acquired');
  }, 300_000);
});
