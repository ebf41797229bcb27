// Test support: hand-built discovered hooks running the real fixture scripts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiscoveredHook, Discovery, HookEvent } from '../support/core';

export const FIXTURES = join(__dirname, '..', 'fixtures');
/** Absolute path of a fixture script. */
export const fx = (name: string): string => join(FIXTURES, name);

/** Single-quote a string for /bin/sh. */
export const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Command running emit.sh: exit code, stdout, stderr, optional sleep before writing. */
export function emit(code: number, stdout: unknown = '', stderr = '', sleep = ''): string {
  const out = typeof stdout === 'string' ? stdout : JSON.stringify(stdout);
  return [fx('emit.sh'), String(code), sq(out), sq(stderr), sq(sleep)].join(' ');
}

let counter = 0;
/** A discovered, managed hook with sensible defaults. */
export function hook(event: HookEvent, command: string, extra: Partial<DiscoveredHook> = {}): DiscoveredHook {
  const n = counter++;
  const sourceFile = extra.sourceFile ?? '/etc/zerotwo/requirements.toml';
  const snake = event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  return {
    key: `${sourceFile}:${snake}:${n}:0`,
    hash: `sha256:${String(n).padStart(64, '0')}`,
    event,
    layer: 'managed',
    sourceFile,
    groupIndex: n,
    handlerIndex: 0,
    handler: { type: 'command', command },
    timeoutSec: 30,
    managed: true,
    trust: 'managed',
    ...extra,
  };
}

/** A discovery holding the given hooks. */
export function discovery(hooks: DiscoveredHook[], extra: Partial<Discovery> = {}): Discovery {
  return { hooksEnabled: true, featureReason: 'default', hooks, skipped: [], diagnostics: [], ...extra };
}

/** A fresh temporary directory. */
export const tmp = (prefix = 'hc-'): string => mkdtempSync(join(tmpdir(), prefix));

/** Minimal PreToolUse input for a Bash command. */
export const bashInput = (command = 'rm -rf build'): Record<string, unknown> => ({
  session_id: 'sess-1',
  turn_id: 'turn-1',
  cwd: tmpdir(),
  model: 'gpt-test',
  tool_name: 'Bash',
  tool_use_id: 'call-1',
  tool_input: { command },
});
