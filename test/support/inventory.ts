// A person's ZeroTwo setup for inventory tests, and the real agent reporting it: hooks.json files, the engine CLI
// (trust) against a temp home, and `hookwarden-agent inventory` for one home.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { runAgent } from './agent';

/** The built engine CLI (`zerotwo-hooks`). */
export const HOOKS_BIN = path.resolve(__dirname, '../../libs/hook-core/dist/cli/main.js');

// Writes a hooks.json with one command hook per [event, command] pair.
export async function writeHooks(file: string, hooks: Array<[string, string]>): Promise<void> {
  const doc: Record<string, unknown[]> = {};
  for (const [event, command] of hooks) (doc[event] ??= []).push({ hooks: [{ type: 'command', command }] });
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify({ hooks: doc }));
}

// Runs the engine CLI against a ZeroTwo home (e.g. `trust-project DIR`).
export function engineCli(args: string[], zerotwoHome: string): string {
  return execFileSync(process.execPath, [HOOKS_BIN, ...args, '--home', zerotwoHome], { encoding: 'utf8' });
}

// Reports one person's inventory once through the real agent CLI, as `hookwarden-agent run` does on change.
export async function reportInventory(o: {
  stateDir: string;
  root: string;
  user: string;
  home: string;
}): Promise<{ changed: boolean; hooks: number }> {
  const r = await runAgent([
    'inventory',
    '--state-dir',
    o.stateDir,
    '--root',
    o.root,
    '--inventory-users',
    'none',
    '--inventory-home',
    `${o.user}=${o.home}`,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { changed: boolean; hooks: number };
}
