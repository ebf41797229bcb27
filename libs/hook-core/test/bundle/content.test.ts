// The one set of bundle content rules: every case the agent refused after the API had stored the version.
import { describe, expect, it } from 'vitest';
import {
  checkBundleContent,
  lintPolicy,
  managedDirProblem,
  MAX_FILE_PATH_BYTES,
  parsePolicyToml,
  type ContentFile,
} from '../support/core';

const file = (path: string, mode = 0o755, size = 1): ContentFile => ({ path, mode, size });
const codesFor = (files: ContentFile[], managedDir: unknown = '/opt/hw/hooks'): string[] =>
  checkBundleContent({ managedDir, files }).map((p) => `${p.code}@${p.where.join('.')}`);

describe('managed file names', () => {
  it.each([
    ['lib/./util.sh', /`\.` segment/],
    ['./x', /`\.` segment/],
    ['a\nb.sh', /U\+000A/],
    ['a\tb.sh', /U\+0009/],
    ['a\u0001b.sh', /U\+0001/],
    ['a\u0085b.sh', /U\+0085/],
    ['x'.repeat(300), /300-byte segment; the limit is 255/],
    ['é'.repeat(128) + '.sh', /259-byte segment/],
    [Array.from({ length: 8 }, () => 'y'.repeat(127)).join('/'), /bytes long; the limit is 512/],
    ['a'.repeat(1024), /bytes long/],
    ['a//b', /empty segment/],
    ['dir/', /empty segment/],
    ['../x', /`\.\.`/],
    ['/abs', /relative/],
    ['~/x', /relative/],
    ['C:x', /relative/],
    ['a\\b', /backslash/],
    ['ab:c.sh', /Windows forbids/],
    ['x/con.txt', /device name/],
    ['trailing.', /dot or space/],
    ['\ud800x', /well-formed/],
  ])('%j is refused, located at its path', (path, message) => {
    const problems = checkBundleContent({ managedDir: '/opt/hw', files: [file('ok.sh'), file(path)] });
    expect(problems).toEqual([expect.objectContaining({ code: 'unsafe_file_path', where: ['files', 1, 'path'] })]);
    expect(problems[0]!.message).toMatch(message);
  });

  it('a path at the byte limit is fine', () => {
    const p = Array.from({ length: 4 }, () => 'y'.repeat(127)).join('/');
    expect(Buffer.byteLength(p)).toBe(MAX_FILE_PATH_BYTES - 512 + 511);
    expect(codesFor([file(p)])).toEqual([]);
  });

  it('case-folding and normalization duplicates collide (A.sh + a.sh, é NFC + NFD)', () => {
    expect(codesFor([file('A.sh'), file('a.sh')])).toEqual(['duplicate_file_path@files.1.path']);
    expect(codesFor([file('caf\u00e9.sh'), file('cafe\u0301.sh')])).toEqual(['duplicate_file_path@files.1.path']);
    expect(codesFor([file('x.sh'), file('x.sh')])).toEqual(['duplicate_file_path@files.1.path']);
  });

  it('a file whose parent is also a file conflicts (x + x/y.sh, in either order, across case)', () => {
    expect(codesFor([file('x'), file('x/y.sh')])).toEqual(['file_directory_conflict@files.1.path']);
    expect(codesFor([file('X/y/z.sh'), file('x')])).toEqual(['file_directory_conflict@files.0.path']);
    expect(codesFor([file('x/a.sh'), file('x/b.sh')])).toEqual([]);
  });

  it('modes: permission bits, owner-readable, not writable by group or others', () => {
    expect(codesFor([file('a.sh', 0o755), file('b', 0o644), file('c', 0o700), file('d', 0o400)])).toEqual([]);
    expect(codesFor([file('a', 0o777), file('b', 0o666), file('c', 0o000), file('d', 0o1755)])).toEqual([
      'invalid_file_mode@files.0.mode',
      'invalid_file_mode@files.1.mode',
      'invalid_file_mode@files.2.mode',
      'invalid_file_mode@files.3.mode',
    ]);
  });

  it('sizes, counts and files without a managed directory', () => {
    expect(codesFor([file('a', 0o644, 1024 * 1024 + 1)])).toEqual(['file_too_large@files.0.content']);
    expect(codesFor(Array.from({ length: 201 }, (_, i) => file(`f${i}`)))).toEqual(['too_many_files@files']);
    expect(codesFor(Array.from({ length: 17 }, (_, i) => file(`f${i}`, 0o644, 1024 * 1024)))).toEqual([
      'files_too_large@files',
    ]);
    expect(checkBundleContent({ files: [file('a')] }).map((p) => p.code)).toEqual(['files_without_managed_dir']);
    expect(checkBundleContent({ windowsManagedDir: 'C:\\hw', files: [file('a')] })).toEqual([]);
  });
});

describe('managed_dir', () => {
  it.each([
    ['~/.zerotwo/hooks', 'managed_dir_home_relative', /system-wide/],
    ['~', 'managed_dir_home_relative', /system-wide/],
    ['hooks', 'managed_dir_not_absolute', /absolute/],
    ['/', 'managed_dir_overlap', /must not be \//],
    ['/etc/zerotwo', 'managed_dir_overlap', /system config directory/],
    ['/etc', 'managed_dir_overlap', /system/],
    ['/private/etc/zerotwo', 'managed_dir_overlap', /system config directory/],
    ['/etc/zerotwo/.hookwarden-layer/current/managed', 'managed_dir_overlap', /\.hookwarden-layer/],
    ['/etc/zerotwo/.hookwarden-layer', 'managed_dir_overlap', /layer/],
    ['/etc/zerotwo/requirements.toml', 'managed_dir_overlap', /requirements\.toml/],
    ['/var/lib/hookwarden-agent', 'managed_dir_overlap', /state directory/],
    ['/var/lib/hookwarden-agent/spool', 'managed_dir_overlap', /state directory/],
    ['/var/lib', 'managed_dir_overlap', /system directory/],
    ['/Library/Application Support/Hookwarden', 'managed_dir_overlap', /state directory/],
    ['/tmp/hooks', 'managed_dir_overlap', /writable by every user/],
    ['/proc/self', 'managed_dir_overlap', /virtual/],
    ['/usr/bin', 'managed_dir_overlap', /system directory/],
    ['/home/alice', 'managed_dir_overlap', /home directory/],
    ['/opt/hooks/', 'invalid_managed_dir', /normalized/],
    ['/opt//hooks', 'invalid_managed_dir', /normalized/],
    ['/opt/./hooks', 'invalid_managed_dir', /normalized/],
    ['/opt/x/../hooks', 'invalid_managed_dir', /normalized/],
    ['/opt/ho\noks', 'invalid_managed_dir', /U\+000A/],
    ['/opt/' + 'x'.repeat(300), 'invalid_managed_dir', /limit is 256/],
    ['', 'invalid_managed_dir', /empty/],
    [42, 'invalid_managed_dir', /string/],
  ])('%j is refused (%s)', (dir, code, message) => {
    const p = managedDirProblem(dir, 'posix');
    expect(p?.code).toBe(code);
    expect(p?.message).toMatch(message);
  });

  it.each(['/opt/zerotwo/hooks', '/opt/hw', '/etc/zerotwo/managed', '/usr/local/share/zerotwo', '/srv/x/y'])(
    '%j is fine',
    (dir) => expect(managedDirProblem(dir, 'posix')).toBeNull(),
  );

  it.each([
    ['C:\\', /drive root/],
    ['C:\\ProgramData\\ZeroTwo', /system config directory/],
    ['c:/programdata/zerotwo/.hookwarden-layer', /system config directory/],
    ['C:\\ProgramData\\Hookwarden\\agent', /state directory/],
    ['C:\\ProgramData', /system directory/],
    ['C:\\Windows\\System32\\x', /inside C:\\Windows/],
    ['hooks', /absolute/],
    ['C:\\hw\\..\\x', /normalized/],
    ['%ProgramData%\\x', /variables/],
  ])('windows_managed_dir %j is refused', (dir, message) => {
    expect(managedDirProblem(dir, 'win32')?.message).toMatch(message);
  });

  it.each(['C:\\enterprise\\hooks', 'D:/hw/hooks', '\\\\server\\share\\hooks'])('windows_managed_dir %j is fine', (d) =>
    expect(managedDirProblem(d, 'win32')).toBeNull(),
  );

  it('lintPolicy reports content problems with TOML line and column', () => {
    const text = '[hooks]\n\n   managed_dir = "/etc/zerotwo"\n';
    const r = parsePolicyToml(text);
    if (!r.ok) throw new Error('parse');
    const l = lintPolicy(
      r.policy,
      [
        { path: 'A.sh', mode: 0o755, size: 1 },
        { path: 'a.sh', mode: 0o755, size: 1 },
      ],
      {
        sourceText: text,
      },
    );
    expect(l.errors).toEqual([
      expect.objectContaining({ code: 'managed_dir_overlap', path: '$.hooks.managed_dir', line: 3, column: 4 }),
      expect.objectContaining({ code: 'duplicate_file_path', path: '$.files[1].path' }),
    ]);
  });
});
