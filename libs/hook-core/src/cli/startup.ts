// How a CLI process was started (plain script, V8 startup snapshot, single executable) and its user arguments.

/** Whether this process runs as a Node single executable application. */
function isSea(): boolean {
  try {
    // node:sea exists from Node 20.12; `require` keeps it out of the module graph of older runtimes.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}

/**
 * Whether this process is building a V8 startup snapshot. node:v8 (and the modules it loads) is required only when
 * the command line can build one (`--build-snapshot`, or `--experimental-sea-config` with `useSnapshot`): every
 * other start skips it.
 */
function buildingSnapshot(): boolean {
  if (!process.execArgv.some((a) => a === '--build-snapshot' || a.startsWith('--experimental-sea-config')))
    return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:v8') as typeof import('node:v8')).startupSnapshot.isBuildingSnapshot();
}

/** The arguments after the executable (and the script, when there is one). */
export function userArgs(fromSnapshot: boolean): string[] {
  // `node --snapshot-blob b.blob args…` has no script argument; a SEA repeats the executable as argv[1].
  return process.argv.slice(fromSnapshot && !isSea() ? 1 : 2);
}

/**
 * Runs `main` now, or — while a V8 startup snapshot is being built — warms the code up first and runs `main` when
 * the snapshot is deserialized (every module is then already loaded and compiled: no parse or init cost per event).
 */
export function startCli(main: (args: string[]) => void, warmUp: () => void): void {
  if (buildingSnapshot()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startupSnapshot } = require('node:v8') as typeof import('node:v8');
    warmUp();
    startupSnapshot.setDeserializeMainFunction(() => main(userArgs(true)));
  } else main(userArgs(false));
}
