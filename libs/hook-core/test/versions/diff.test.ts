// Version diffs (hook-core's one implementation for the API's version diffs and the CLI's plan).
import { describe, expect, it } from 'vitest';
import { diffContent, diffFile } from '../../src/versions/diff';

const file = (path: string, text: string | Buffer, mode = 0o644) => {
  const content = typeof text === 'string' ? Buffer.from(text) : text;
  return { path, content, mode, sha256: content.toString('hex') };
};
const labels = { fromLabel: 'v1', toLabel: 'v2' };

describe('diffFile', () => {
  it('names the status and writes a git-style patch with mode lines', () => {
    expect(diffFile('a.sh', file('a.sh', 'x\n'), file('a.sh', 'x\n'), labels)).toMatchObject({
      status: 'unchanged',
      patch: '',
    });
    const added = diffFile('a.sh', undefined, file('a.sh', 'x\n', 0o755), labels);
    expect(added).toMatchObject({ status: 'added', oldMode: null, newMode: 0o755, binary: false });
    expect(added.patch).toMatch(/^diff --hookwarden a\/a\.sh b\/a\.sh\nnew file mode 0755\n--- \/dev\/null\t?v1?/);
    expect(added.patch).toContain('+x');
    const removed = diffFile('a.sh', file('a.sh', 'x\n'), undefined, labels);
    expect(removed.patch).toContain('deleted file mode 0644\n');
    const mode = diffFile('a.sh', file('a.sh', 'x\n'), file('a.sh', 'x\n', 0o755), labels);
    expect(mode).toMatchObject({ status: 'mode_changed' });
    expect(mode.patch).toBe('diff --hookwarden a/a.sh b/a.sh\nold mode 0644\nnew mode 0755\n');
    const binary = diffFile('b', file('b', Buffer.from([0, 1])), file('b', Buffer.from([0, 2])), labels);
    expect(binary).toMatchObject({ status: 'modified', binary: true });
    expect(binary.patch).toContain('Binary files a/b and b/b differ\n');
  });

  it('validates its options first', () => {
    expect(() => diffFile('a', undefined, file('a', 'x'), { ...labels, context: 101 })).toThrow(/context/);
    expect(() => diffFile('a', undefined, file('a', 'x'), { fromLabel: 'a\nb', toLabel: 'c' })).toThrow(/fromLabel/);
  });
});

describe('diffContent', () => {
  it('diffs the TOML and every changed file by path, labelled, and joins the patches', () => {
    const a = { toml: 'x = 1\n', files: [file('keep.sh', 'k\n'), file('gone.sh', 'g\n'), file('edit.sh', '1\n')] };
    const b = { toml: 'x = 2\n', files: [file('keep.sh', 'k\n'), file('edit.sh', '2\n'), file('new.sh', 'n\n')] };
    const d = diffContent(a, b, { ...labels, context: 0, fileLabel: (p) => `files/${p}` });
    expect(d.toml.status).toBe('modified');
    expect(d.files.map((f) => [f.path, f.status])).toEqual([
      ['files/edit.sh', 'modified'],
      ['files/gone.sh', 'removed'],
      ['files/new.sh', 'added'],
    ]);
    expect(d.text).toBe([d.toml, ...d.files].map((f) => f.patch).join(''));
    expect(d.text).toContain('--- a/requirements.toml\tv1\n+++ b/requirements.toml\tv2\n');
  });

  it('shows everything as added when there is no earlier content', () => {
    const d = diffContent(undefined, { toml: 'x = 1\n', files: [file('a.sh', 'a\n')] }, labels);
    expect(d.toml).toMatchObject({ status: 'added', oldMode: null });
    expect(d.files.map((f) => f.status)).toEqual(['added']);
  });
});
