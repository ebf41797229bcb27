// The hook path of `hookwarden-agent hooks <zerotwo-hooks arguments>`: hook-core's CLI with this endpoint's managed
// requirements, spool, policy revision and capture policy preset. Small on purpose: every hook event of the machine
// starts a process that runs this (main.ts requires it without building the rest of the program).
import path from 'node:path';
import { runCli } from '@hookwarden/hook-core/cli';
import { requirementsPathFor } from '../materialize/paths';
import { readAgentState } from '../state/agent-state';
import { captureArgs, readCaptureSettings } from '../spool/capture-cache';
import { absoluteDir, defaultStateDir } from './options';

/** The spool directory inside the agent's state directory. */
export function spoolDirOf(stateDir: string): string {
  return path.join(stateDir, 'spool');
}

// Removes `--name value` / `--name=value` from args; returns the value (last one wins) or the fallback.
function takeOption(args: string[], name: string, fallback: string): string {
  let value = fallback;
  for (let i = 0; i < args.length;) {
    const a = args[i]!;
    if (a === name && i + 1 < args.length) {
      value = args[i + 1]!;
      args.splice(i, 2);
    } else if (a.startsWith(`${name}=`)) {
      value = a.slice(name.length + 1);
      args.splice(i, 1);
    } else i++;
  }
  return value;
}

// The zerotwo-hooks argv with the endpoint's locations and policy appended (after the user's, so they win).
export async function hooksArgv(args: string[]): Promise<string[]> {
  const rest = [...args];
  const root = absoluteDir(takeOption(rest, '--root', '/'));
  const stateDir = absoluteDir(takeOption(rest, '--state-dir', defaultStateDir()));
  if (rest.length === 0 || rest[0]!.startsWith('-')) return rest; // help, version: nothing to preset
  const state = await readAgentState(stateDir);
  const settings = await readCaptureSettings(stateDir);
  const preset = ['--requirements', requirementsPathFor(root), '--spool', spoolDirOf(stateDir)];
  if (state.appliedRevision !== null) preset.push('--policy-revision', String(state.appliedRevision));
  return [...rest, ...preset, ...captureArgs(settings)];
}

// Runs zerotwo-hooks with the endpoint's preset; resolves with its exit code.
export async function runHooks(args: string[]): Promise<number> {
  return runCli(await hooksArgv(args));
}
