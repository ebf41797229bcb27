// The managed layer's gate (layer-state.json, written by the agent's in-place switch): the engine runs managed hooks
// only on a stable layer whose files match its manifest, and registers as a reader while it runs them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverHooks, holdManagedLayer, managedLayerProblem } from '@hookwarden/hook-core';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const REQ =
  '[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "true"\n';
let dir: string;
let req: string;
let managed: string;

// Writes the gate beside requirements.toml.
function gate(state: 'stable' | 'switching', files: Record<string, string>, reqText = REQ): void {
  writeFileSync(
    join(dir, '.hookwarden-layer', 'layer-state.json'),
    JSON.stringify({
      state,
      version: 'v2-abc',
      from: state === 'switching' ? 'v1-abc' : null,
      requirementsSha256: sha(reqText),
      managedDir: managed,
      files: Object.entries(files).map(([path, content]) => ({ path, sha256: sha(content) })),
    }),
  );
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hc-gate-'));
  managed = join(dir, 'managed');
  mkdirSync(join(dir, '.hookwarden-layer'), { recursive: true });
  mkdirSync(join(managed, 'lib'), { recursive: true });
  req = join(dir, 'requirements.toml');
  writeFileSync(req, REQ);
  writeFileSync(join(managed, 'check.sh'), 'v2\n');
  writeFileSync(join(managed, 'lib', 'x.sh'), 'x2\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('managedLayerProblem', () => {
  it('accepts a stable layer whose files match, and no gate at all', () => {
    expect(managedLayerProblem(req, REQ)).toBeNull(); // no layer-state.json: links or no agent
    gate('stable', { 'check.sh': 'v2\n', 'lib/x.sh': 'x2\n' });
    expect(managedLayerProblem(req, REQ)).toBeNull();
  });

  it('refuses a switch in progress, a mixed or tampered layer, and an unreadable gate', () => {
    gate('switching', { 'check.sh': 'v2\n' });
    expect(managedLayerProblem(req, REQ)).toMatch(/switching the managed layer to v2-abc/);
    gate('stable', { 'check.sh': 'v2\n', 'lib/x.sh': 'x3\n' });
    expect(managedLayerProblem(req, REQ)).toMatch(/lib.x\.sh does not match the managed layer's manifest/);
    gate('stable', { 'check.sh': 'v2\n', 'gone.sh': 'g\n' });
    expect(managedLayerProblem(req, REQ)).toMatch(/gone\.sh does not match/);
    gate('stable', {}, 'other requirements');
    expect(managedLayerProblem(req, REQ)).toMatch(/requirements\.toml does not match/);
    writeFileSync(join(dir, '.hookwarden-layer', 'layer-state.json'), '{"state":');
    expect(managedLayerProblem(req, REQ)).toMatch(/is not a layer state/);
  });

  it('discovery fails closed on it: no managed hook runs, the reason says why', () => {
    gate('switching', {});
    const d = discoverHooks({ requirementsPath: req, home: join(dir, 'h'), systemDir: join(dir, 's') });
    expect(d.hooksEnabled).toBe(false);
    expect(d.hooks).toEqual([]);
    expect(d.featureReason).toMatch(/switching the managed layer.*failing closed/);
    gate('stable', { 'check.sh': 'v2\n' });
    expect(
      discoverHooks({ requirementsPath: req, home: join(dir, 'h'), systemDir: join(dir, 's') }).hooks,
    ).toHaveLength(1);
  });
});

describe('holdManagedLayer', () => {
  const readers = (): string[] =>
    existsSync(join(dir, '.hookwarden-layer', 'readers')) ? readdirSync(join(dir, '.hookwarden-layer', 'readers')) : [];

  it('holds a reader file named by its pid on a stable layer until released; nothing without a gate', () => {
    holdManagedLayer(req).release();
    expect(readers()).toEqual([]);
    gate('stable', { 'check.sh': 'v2\n' });
    const hold = holdManagedLayer(req);
    expect(readers()).toEqual([expect.stringMatching(new RegExp(`^${process.pid}-[0-9a-f]{12}$`))]);
    hold.release();
    expect(readers()).toEqual([]);
  });

  it('steps aside while a switch is in progress (so the agent is not held up) and gives up after its wait', () => {
    gate('switching', {});
    const hold = holdManagedLayer(req, 200);
    expect(readers().length).toBeLessThanOrEqual(1);
    hold.release();
    expect(readers()).toEqual([]);
  });
});
