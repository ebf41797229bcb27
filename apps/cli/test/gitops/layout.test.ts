// Offline validation of a GitOps layout: every problem named with its file and location, nothing sent anywhere.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, formatProblem } from '../../src/cli/errors';
import { readLayout } from '../../src/gitops/layout';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-layout-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const TOML =
  '[hooks]\nmanaged_dir = "/opt/h"\n\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/h/s.sh"\n';

// Writes a layout from a map of relative paths to contents.
async function layout(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(tmp, name);
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), content, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return root;
}

// The problems readLayout reports, formatted.
async function problems(root: string): Promise<string[]> {
  try {
    await readLayout(root);
  } catch (err) {
    if (err instanceof CliError) return err.problems.map(formatProblem);
    throw err;
  }
  return [];
}

describe('readLayout', () => {
  it('reads groups, policies, rollout and file modes', async () => {
    const root = await layout('ok', {
      'groups.toml': '[groups.a]\ndescription = "A"\n[groups.a.capture]\nmode = "none"\n[groups.c]\n',
      'policies/p1/policy.toml':
        'group = "a"\n[rollout]\nstrategy = "staged"\ninterval = "90s"\n[file_modes]\n"k.conf" = "0600"\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p1/files/s.sh': '#!/bin/sh\n',
      'policies/p1/files/k.conf': 'x\n',
      'policies/p2/policy.toml': 'group = "c"\n[rollout]\nstrategy = "shadow"\nrings = [10, 100]\ninterval = "1d"\n',
      'policies/p2/requirements.toml': TOML,
    });
    const d = await readLayout(root);
    expect(d.groups.map((g) => g.name)).toEqual(['a', 'c']);
    expect(d.groups[0]).toEqual({
      name: 'a',
      description: 'A',
      capture: { capture: 'none', maxExcerptBytes: 2048, redactPatterns: [], useDefaultRedact: true },
    });
    expect(d.policies[0]).toMatchObject({ name: 'p1', group: 'a', folder: 'policies/p1' });
    expect(d.policies[0]!.rollout).toMatchObject({ strategy: 'staged', rings: [1, 5, 25, 100], ringIntervalSec: 90 });
    expect(d.policies[1]!.rollout).toEqual({ strategy: 'shadow', rings: [10, 100], ringIntervalSec: 86_400 });
    expect(d.policies[0]!.content.files.map((f) => [f.path, f.mode])).toEqual([
      ['k.conf', 0o600],
      ['s.sh', 0o755],
    ]);
  });

  it('names every problem with its file and key', async () => {
    const root = await layout('bad', {
      'groups.toml': '[groups."bad/name"]\n[groups.b]\ncolour = "red"\n',
      'policies/p1/policy.toml': 'group = "missing"\n[rollout]\nstrategy = "staged"\nrings = [50, 40]\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p2/policy.toml': 'name = "p1"\ngroup = "b"\n[rollout]\nstrategy = "immediate"\nrings = [100]\n',
      'policies/p2/requirements.toml': TOML,
      'policies/p3/requirements.toml': TOML,
      'policies/p4/policy.toml': 'group = "b"\n',
      'policies/p4/requirements.toml': 'hooks = [\n',
      'policies/p5/policy.toml':
        'name = "p5"\ngroup = "b"\n[rollout]\nstrategy = "shadow"\nmax_apply_failure_rate = 0.1\n',
      'policies/p5/requirements.toml': TOML,
    });
    const list = await problems(root);
    expect(list).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^groups\.toml:1:1 groups\.bad\/name: group name: letters, digits/),
        expect.stringMatching(/^groups\.toml:3:1 groups\.b: .*colour/),
        'policies/p1/policy.toml:4:1 rollout.rings[1]: rings must be strictly increasing [invalid_manifest]',
        'policies/p2/policy.toml:5:1 rollout.rings: only for strategy = "staged" or "shadow" [invalid_manifest]',
        'policies/p5/policy.toml:5:1 rollout.max_apply_failure_rate: only for strategy = "staged" [invalid_manifest]',
        'policies/p3/policy.toml: missing: every policy folder needs a policy.toml',
        expect.stringMatching(/^policies\/p4\/requirements\.toml:2:1: /),
      ]),
    );
  });

  it('redact patterns are checked by the engine compiler (RE2): a JavaScript-only look-ahead is refused', async () => {
    const root = await layout('redact', {
      'groups.toml':
        '[groups.a]\n[groups.a.capture]\nmode = "excerpts"\nredact_patterns = ["MYCORP-\\\\d+", "secret(?=:)"]\n',
      'policies/p1/policy.toml': 'group = "a"\n',
      'policies/p1/requirements.toml': TOML,
    });
    const list = (await problems(root)).filter((l) => l.startsWith('groups.toml'));
    expect(list).toEqual([
      'groups.toml:4:1 groups.a.capture.redact_patterns[1]: not a valid regular expression (RE2 syntax) [invalid_manifest]',
    ]);
  });

  it('cross-file rules: declared groups, unique names, one released policy per group', async () => {
    const root = await layout('cross', {
      'groups.toml': '[groups.a]\n',
      'policies/p1/policy.toml': 'group = "nope"\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p2/policy.toml': 'name = "x"\ngroup = "a"\n',
      'policies/p2/requirements.toml': TOML,
      'policies/p3/policy.toml': 'name = "x"\ngroup = "a"\n',
      'policies/p3/requirements.toml': TOML,
    });
    const list = await problems(root);
    expect(list).toContain('policies/p1/policy.toml:1:1 group: group "nope" is not declared in groups.toml');
    expect(list.some((l) => l.includes('policy name "x" is also used by policies/p2'))).toBe(true);
    expect(list.some((l) => l.includes('a group serves one policy'))).toBe(true);
  });

  it('a file_modes path that climbs out is a located problem of policy.toml, not a missing file', async () => {
    const root = await layout('modes', {
      'groups.toml': '[groups.a]\n',
      'policies/p1/policy.toml': 'group = "a"\n\n[file_modes]\n"s.sh" = "0755"\n"../x.sh" = "0755"\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p1/files/s.sh': '#!/bin/sh\n',
    });
    const list = await problems(root);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(/^policies\/p1\/policy\.toml:5:1 file_modes\."\.\.\/x\.sh": .*\[unsafe_path\]$/);
    expect(list[0]).toContain('..');
  });

  it('cross-file problems carry the line of the key in policy.toml', async () => {
    const root = await layout('cross-lines', {
      'groups.toml': '[groups.a]\n',
      'policies/p1/policy.toml': '# the baseline\ndescription = "x"\ngroup = "a"\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p2/policy.toml': '\n\ngroup = "a"\n\n[rollout]\nstrategy = "immediate"\n',
      'policies/p2/requirements.toml': TOML,
    });
    expect(await problems(root)).toEqual([
      expect.stringMatching(/^policies\/p2\/policy\.toml:6:1 rollout\.strategy: group "a" is already released/),
    ]);
  });

  it('a link anywhere in the layout is refused with its path (links are never followed)', async () => {
    const root = await layout('linked', {
      'groups.toml': '[groups.a]\n',
      'policies/p1/policy.toml': 'group = "a"\n',
      'policies/p1/requirements.toml': TOML,
    });
    await fs.rename(path.join(root, 'groups.toml'), path.join(root, 'real-groups.toml'));
    await fs.symlink('real-groups.toml', path.join(root, 'groups.toml'));
    await fs.rename(path.join(root, 'policies/p1/requirements.toml'), path.join(root, 'r.toml'));
    await fs.symlink('../../r.toml', path.join(root, 'policies/p1/requirements.toml'));
    expect(await problems(root)).toEqual([
      expect.stringMatching(/^groups\.toml: is a symbolic link.* \[symlink\]$/),
      expect.stringMatching(/^policies\/p1\/requirements\.toml: is a symbolic link.* \[symlink\]$/),
    ]);
  });

  it('rejects symlinks, unsafe paths and a missing groups.toml', async () => {
    const root = await layout('links', {
      'policies/p1/policy.toml': 'group = "default"\n',
      'policies/p1/requirements.toml': TOML,
      'policies/p1/files/s.sh': '#!/bin/sh\n',
    });
    await fs.symlink('/etc/passwd', path.join(root, 'policies/p1/files/passwd'));
    const list = await problems(root);
    expect(list).toContain(
      'groups.toml: missing: the layout needs a groups.toml (it may declare only [groups.default])',
    );
    expect(list).toContain(
      'policies/p1/files/passwd: is a symbolic link: managed files must be regular files [symlink]',
    );
  });
});
