// Version preparation (hook-core's one implementation for the API and the CLI): stage order and outcomes.
import { describe, expect, it } from 'vitest';
import { MAX_REQUIREMENTS_BYTES } from '../../src/bundle/content';
import { fileSha256, versionDigest } from '../../src/bundle/version-digest';
import { prepareVersion } from '../../src/versions/prepare';

const TOML = '# the baseline\n[hooks]\nmanaged_dir = "/opt/hw"\n';
const script = { path: 'check.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 };

describe('prepareVersion', () => {
  it('turns TOML plus files into canonical content whose digest is versionDigest of it', () => {
    const r = prepareVersion({ toml: TOML, files: [script] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.form).toBe('toml');
    expect(r.version.toml).toBe('[hooks]\nmanaged_dir = "/opt/hw"\n');
    expect(r.version.structured).toEqual({ hooks: { managed_dir: '/opt/hw' } });
    const sha = fileSha256(Buffer.from(script.content));
    expect(r.version.files).toEqual([
      { path: 'check.sh', content: Buffer.from(script.content), sha256: sha, size: 17, mode: 0o755 },
    ]);
    expect(r.version.digest).toBe(versionDigest(r.version.toml, [{ path: 'check.sh', sha256: sha, mode: 0o755 }]));
    expect(r.version.warnings).toEqual([]);
  });

  it('gives the same content for the structured form and for bytes or base64 file content', () => {
    const a = prepareVersion({ toml: TOML, files: [script] });
    const b = prepareVersion({
      policy: { hooks: { managed_dir: '/opt/hw' } },
      files: [{ ...script, content: Buffer.from(script.content).toString('base64'), encoding: 'base64' }],
    });
    const c = prepareVersion({ toml: TOML, files: [{ ...script, content: Buffer.from(script.content) }] });
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (!a.ok || !b.ok || !c.ok) return;
    expect(b.form).toBe('policy');
    expect(b.version.digest).toBe(a.version.digest);
    expect(c.version.digest).toBe(a.version.digest);
  });

  it('validates the request and the options before any other stage', () => {
    expect(() => prepareVersion({ toml: TOML, files: [] }, { bogus: 1 } as never)).toThrow(/options/);
    const both = prepareVersion({ toml: TOML, policy: {}, files: [] });
    expect(both).toMatchObject({ ok: false, errors: [{ code: 'invalid_input', path: '$.toml' }] });
    const badMode = prepareVersion({ toml: TOML, files: [{ ...script, mode: 0o10000 }] });
    expect(badMode).toMatchObject({ ok: false, errors: [{ code: 'invalid_input', path: '$.files[0].mode' }] });
  });

  it('measures the TOML source before parsing it (an oversized source is refused unparsed)', () => {
    const huge = `[hooks\n${'x'.repeat(MAX_REQUIREMENTS_BYTES)}`;
    const r = prepareVersion({ toml: huge, files: [] }, { file: 'p/requirements.toml' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      expect.objectContaining({ code: 'requirements_too_large', file: 'p/requirements.toml' }),
    ]);
  });

  it('locates file, structure, schema and lint errors', () => {
    const b64 = prepareVersion({ toml: TOML, files: [{ ...script, content: 'not base64!', encoding: 'base64' }] });
    expect(b64).toMatchObject({ ok: false, errors: [{ code: 'invalid_base64', path: '$.files[0].content' }] });
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const tooDeep = prepareVersion({ policy: { x: deep }, files: [] });
    expect(tooDeep.ok).toBe(false);
    if (!tooDeep.ok) expect(tooDeep.errors[0]).toMatchObject({ code: 'too_deep' });
    const nul = prepareVersion({ toml: 'note = "a\\u0000b"\n', files: [] });
    expect(nul).toMatchObject({ ok: false, errors: [{ code: 'invalid_text', path: '$.note' }] });
    const syntax = prepareVersion({ toml: '[hooks\n', files: [] });
    expect(syntax).toMatchObject({ ok: false, errors: [{ code: 'toml_syntax', line: 1 }] });
    const lint = prepareVersion({ toml: TOML, files: [{ ...script, path: '../escape.sh' }] });
    expect(lint.ok).toBe(false);
    if (!lint.ok) expect(lint.errors.some((e) => e.path?.startsWith('$.files[0]'))).toBe(true);
  });

  it('warns that comments are dropped only when asked (the API asks, the CLI does not)', () => {
    const quiet = prepareVersion({ toml: TOML, files: [] });
    const noted = prepareVersion({ toml: TOML, files: [] }, { noteDroppedComments: true });
    expect(quiet.ok && quiet.version.warnings).toEqual([]);
    expect(noted.ok && noted.version.warnings).toEqual([
      expect.objectContaining({ code: 'comments_dropped', line: 1, column: 1, file: 'requirements.toml' }),
    ]);
  });
});
