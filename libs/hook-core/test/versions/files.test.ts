// Decoding a version's managed files.
import { describe, expect, it } from 'vitest';
import { fileSha256 } from '../../src/bundle/version-digest';
import { decodeVersionFiles } from '../../src/versions/files';

describe('decodeVersionFiles', () => {
  it('decodes UTF-8, base64 and bytes alike, with sha256 and size', () => {
    const bytes = Buffer.from('#!/bin/sh\n');
    const { files, errors } = decodeVersionFiles([
      { path: 'a', content: '#!/bin/sh\n', mode: 0o755 },
      { path: 'b', content: bytes.toString('base64'), encoding: 'base64', mode: 0o644 },
      { path: 'c', content: new Uint8Array(bytes), mode: 0o600 },
    ]);
    expect(errors).toEqual([]);
    for (const f of files) {
      expect(f.content.equals(bytes)).toBe(true);
      expect(f.sha256).toBe(fileSha256(bytes));
      expect(f.size).toBe(bytes.length);
    }
    expect(files.map((f) => [f.path, f.mode])).toEqual([
      ['a', 0o755],
      ['b', 0o644],
      ['c', 0o600],
    ]);
  });

  it('refuses base64 that does not decode exactly, located at the file', () => {
    const { files, errors } = decodeVersionFiles([
      { path: 'ok', content: 'eA==', encoding: 'base64', mode: 0o644 },
      { path: 'bad', content: 'eA=', encoding: 'base64', mode: 0o644 },
    ]);
    expect(files.map((f) => f.path)).toEqual(['ok']);
    expect(errors).toEqual([expect.objectContaining({ code: 'invalid_base64', path: '$.files[1].content' })]);
  });
});
