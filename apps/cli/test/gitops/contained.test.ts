// The contained reader of a GitOps directory: regular files inside the tree only; links (of the file or any folder
// on the way), special files, `..` and absolute paths refused, naming the path; absent files are null.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainedDir, ContainedError } from '../../src/gitops/contained';

let tmp: string;
let root: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-contained-'));
  root = path.join(tmp, 'layout');
  await fs.mkdir(path.join(root, 'a/b'), { recursive: true });
  await fs.writeFile(path.join(root, 'a/b/file.toml'), 'x = 1\n');
  await fs.writeFile(path.join(tmp, 'outside.toml'), 'secret = 1\n');
  await fs.symlink(path.join(tmp, 'outside.toml'), path.join(root, 'a/out-link.toml'));
  await fs.symlink('b/file.toml', path.join(root, 'a/in-link.toml'));
  await fs.symlink(tmp, path.join(root, 'dir-link'));
  execFileSync('mkfifo', [path.join(root, 'a/fifo')]);
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

// The problem a read is refused with.
async function refusal(read: Promise<unknown>): Promise<unknown> {
  try {
    await read;
  } catch (err) {
    if (err instanceof ContainedError) return err.problem;
    throw err;
  }
  throw new Error('not refused');
}

describe('ContainedDir', () => {
  it('reads regular files inside, null when absent, and lists folders', async () => {
    const dir = (await ContainedDir.open(root))!;
    expect((await dir.readFile('a/b/file.toml', 100))!.content.toString()).toBe('x = 1\n');
    expect(await dir.readFile('a/b/none.toml', 100)).toBeNull();
    expect(await dir.readFile('nowhere/x.toml', 100)).toBeNull();
    expect(((await dir.readDir('a')) ?? []).map((e) => e.name).sort()).toEqual([
      'b',
      'fifo',
      'in-link.toml',
      'out-link.toml',
    ]);
    expect(await dir.readDir('missing')).toBeNull();
    await expect(dir.readFile('a/b/file.toml', 3)).rejects.toThrow('a/b/file.toml: 6 bytes; the limit is 3');
  });

  it('refuses links (even to a file inside), folders that are links, FIFOs and paths that climb out', async () => {
    const dir = (await ContainedDir.open(root))!;
    expect(await refusal(dir.readFile('a/out-link.toml', 100))).toMatchObject({
      file: 'a/out-link.toml',
      code: 'symlink',
    });
    expect(await refusal(dir.readFile('a/in-link.toml', 100))).toMatchObject({
      file: 'a/in-link.toml',
      code: 'symlink',
    });
    expect(await refusal(dir.readFile('dir-link/outside.toml', 100))).toMatchObject({
      file: 'dir-link',
      code: 'symlink',
    });
    expect(await refusal(dir.readDir('dir-link'))).toMatchObject({ file: 'dir-link', code: 'symlink' });
    expect(await refusal(dir.readFile('a/fifo', 100))).toMatchObject({ file: 'a/fifo', code: 'not_a_file' });
    expect(await refusal(dir.readFile('../outside.toml', 100))).toMatchObject({ code: 'outside_dir' });
    expect(await refusal(dir.readFile(path.join(tmp, 'outside.toml'), 100))).toMatchObject({ code: 'outside_dir' });
  });

  it('a root named through a link is resolved once (the user named it)', async () => {
    const viaLink = (await ContainedDir.open(path.join(root, 'dir-link', 'layout')))!;
    expect(viaLink.realRoot).toBe(await fs.realpath(root));
    expect((await viaLink.readFile('a/b/file.toml', 100))!.content.toString()).toBe('x = 1\n');
  });
});
