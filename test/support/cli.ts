// The built hookwarden CLI as a real child process (through its checked-in bin shim), for end-to-end tests.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const CLI_BIN = path.resolve(__dirname, '../../apps/cli/bin/hookwarden.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Runs `hookwarden ...args` to completion (killed after `timeoutMs`); env is added to a clean copy of this one
// without any HOOKWARDEN_* variables of the developer's shell; `input` is piped to its stdin (else stdin is empty).
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
  input?: string,
): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HOOKWARDEN_')));
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    env: { ...base, NO_COLOR: '1', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
