// The daemon's V8 flags, in one place for the two that set them: the agent's main (single executable, compiled dist/)
// and scripts/run-bin.cjs (the npm bin's launcher, which must set them before it compiles the bundle: V8 rejects a
// code cache made under other flags, and the cache is written at exit). No imports: the launcher loads this file alone.

/**
 * V8 flags of the daemon (`run` without --once, which idles on its long poll for days): footprint over peak speed.
 * The young generation keeps its initial size (a start-up burst grows it to 8 MB, returned only by the memory reducer
 * seconds later) and code is not optimised by TurboFan (its code and zones stay unloaded); the daemon's heavy work is
 * native (hashing, signatures, JSON, I/O). Tiering and growth flags are read when used, so setting them before the
 * program is built takes effect (bench/agent, issue 24).
 */
export const DAEMON_V8_FLAGS = '--max-opt=1 --semi-space-growth-factor=1';

// The V8 flags a command line needs: DAEMON_V8_FLAGS when it starts the daemon, else none ('').
export function daemonV8Flags(args: readonly string[]): string {
  return args[0] === 'run' && !args.includes('--once') ? DAEMON_V8_FLAGS : '';
}
