// Persisting trust decisions in the user layer's config.toml (the only place they live), edited surgically.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTomlTableKey } from './edit';

/** A hook that can be trusted (as listed by discovery). */
export interface TrustTarget {
  key: string;
  hash: string;
  managed?: boolean;
  trust?: string;
}

// Path of the user config.toml.
function configPath(userDir: string): string {
  return join(userDir, 'config.toml');
}

// Applies edits to the user config.toml atomically (temp file + rename).
function editUserConfig(userDir: string, edit: (text: string) => string): void {
  mkdirSync(userDir, { recursive: true });
  const path = configPath(userDir);
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const next = edit(text);
  if (next === text) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, next, { mode: 0o600 });
  renameSync(tmp, path);
}

// Records trust of a hook key at its current hash.
export function trustHook(userDir: string, key: string, hash: string): void {
  if (!/^sha256:[0-9a-f]{64}$/.test(hash)) throw new Error(`invalid hook hash ${JSON.stringify(hash)}`);
  editUserConfig(userDir, (t) => setTomlTableKey(t, ['hooks', 'state', key], 'trusted_hash', hash));
}

// Trusts every non-managed hook that is untrusted or modified; returns the keys trusted.
export function trustAll(userDir: string, hooks: readonly TrustTarget[]): string[] {
  const targets = hooks.filter(
    (h) => !h.managed && (h.trust === undefined || h.trust === 'untrusted' || h.trust === 'modified'),
  );
  editUserConfig(userDir, (text) =>
    targets.reduce((t, h) => setTomlTableKey(t, ['hooks', 'state', h.key], 'trusted_hash', h.hash), text),
  );
  return targets.map((h) => h.key);
}

// Disables a hook key (kept disabled whatever its hash).
export function disableHook(userDir: string, key: string): void {
  editUserConfig(userDir, (t) => setTomlTableKey(t, ['hooks', 'state', key], 'enabled', false));
}

// Re-enables a hook key (it still needs trust to run).
export function enableHook(userDir: string, key: string): void {
  editUserConfig(userDir, (t) => setTomlTableKey(t, ['hooks', 'state', key], 'enabled', true));
}

// Trusts a project directory so its `.zerotwo/` layer loads.
export function trustProject(userDir: string, projectDir: string): void {
  editUserConfig(userDir, (t) => setTomlTableKey(t, ['projects', resolve(projectDir)], 'trust_level', 'trusted'));
}
