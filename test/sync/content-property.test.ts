// Property test of the one content contract (seeded): every generated version the API accepts verifies and applies on
// the agent, and every version the agent refuses is refused by the API with a located error. Most versions run the
// API's authoring function and the agent's verify + materialize code in-process (into a tmpfs root, in sequence, so a
// refused layer must never block the next good one); a sample runs through the real API and a real agent process.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleRejected, buildManifest, serializeManifest, verifyBundle } from '@hookwarden/hook-core';
import { Layer } from '../../apps/agent-sync/src/materialize/layer';
import { prepareVersion } from '../../apps/api/src/policies/version-content';
import { createVersionSchema } from '../../apps/api/src/policies/versions.dto';
import { zodIssues } from '../../apps/api/src/common/zod-issues';
import { runAgent, visibleLayer } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy } from '../support/sync-factories';

const SEED = Number(process.env.HW_PROPERTY_SEED ?? 0x10b);
const COUNT = Number(process.env.HW_PROPERTY_COUNT ?? 5000);
const SAMPLE = 4;
const LANES = 4;
const APPLY_EVERY = Number(process.env.HW_PROPERTY_APPLY_EVERY ?? 4);

// mulberry32: a small seeded PRNG.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface GenFile {
  path: string;
  content: string;
  mode: number;
  encoding?: 'utf8' | 'base64';
}
interface GenVersion {
  toml: string;
  files: GenFile[];
  managedDir: string | null;
  kind: string;
}

const GOOD_DIRS = [
  '/opt/hw/hooks',
  '/opt/zerotwo/hooks',
  '/srv/hw',
  '/usr/local/share/zt',
  '/etc/zerotwo/managed',
  '/opt/a b/h',
  '/opt/ü/h',
  '/var/lib/zt-hooks',
];
/** Bad managed_dir values by rule. */
const BAD_DIRS: Record<string, string> = {
  md_spec_home: '~/.zerotwo/hooks',
  md_tilde: '~',
  md_root: '/',
  md_system_dir: '/etc/zerotwo',
  md_private_etc: '/private/etc/zerotwo',
  md_etc: '/etc',
  md_layer_current: '/etc/zerotwo/.hookwarden-layer/current/managed',
  md_layer: '/etc/zerotwo/.hookwarden-layer',
  md_staging: '/etc/zerotwo/.hookwarden-layer/.staging-x/managed',
  md_requirements: '/etc/zerotwo/requirements.toml',
  md_state: '/var/lib/hookwarden-agent',
  md_state_child: '/var/lib/hookwarden-agent/spool',
  md_state_parent: '/var/lib',
  md_tmp: '/tmp/hooks',
  md_relative: 'hooks',
  md_trailing_slash: '/opt/hw/',
  md_double_slash: '/opt//hw',
  md_dot: '/opt/./hw',
  md_dotdot: '/opt/x/../hw',
  md_long: '/opt/' + 'd'.repeat(300),
  md_usr: '/usr',
  md_home_dir: '/home/alice',
  md_ctl: '/opt/h\tw',
};
const BAD_WIN_DIRS: Record<string, string> = {
  wmd_drive_root: 'C:\\',
  wmd_system_dir: 'C:\\ProgramData\\ZeroTwo',
  wmd_relative: 'hooks',
};
const FILE_KINDS = [
  'f_dot_segment',
  'f_dot_prefix',
  'f_dotdot',
  'f_empty_segment',
  'f_absolute',
  'f_home',
  'f_newline',
  'f_tab',
  'f_ctl01',
  'f_del',
  'f_c1',
  'f_long_segment',
  'f_long_name',
  'f_too_long_for_dto',
  'f_too_deep',
  'f_case_dup',
  'f_nfc_dup',
  'f_exact_dup',
  'f_file_dir',
  'f_dir_file',
  'f_backslash',
  'f_win_char',
  'f_trailing_dot',
  'f_device',
  'f_mode_777',
  'f_mode_666',
  'f_mode_000',
  'f_big_file',
  'f_no_managed_dir',
];
const RULES = [...FILE_KINDS, ...Object.keys(BAD_DIRS), ...Object.keys(BAD_WIN_DIRS)];

// One generated version: valid content, or valid content with one rule broken.
function generate(rng: () => number): GenVersion {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-';
  const name = (): string => {
    const n = 1 + Math.floor(rng() * 10);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
    const r = rng();
    if (r < 0.08) s = s.toUpperCase();
    else if (r < 0.12) s += pick(['é', 'ü', '日本', ' x']);
    return s;
  };
  const files: GenFile[] = [];
  const folded = new Set<string>();
  const goodPath = (): string | null => {
    for (let tries = 0; tries < 10; tries++) {
      const depth = 1 + Math.floor(rng() * 3);
      const parts = Array.from({ length: depth }, name);
      parts[depth - 1] += pick(['.sh', '.py', '', '.txt']);
      const p = parts.join('/');
      const key = p.normalize('NFC').toLowerCase();
      const prefixes = key.split('/').map((_, i, a) => a.slice(0, i + 1).join('/'));
      const clash = [...folded].some((f) => f === key || prefixes.includes(f) || f.startsWith(key + '/'));
      if (!clash) {
        folded.add(key);
        return p;
      }
    }
    return null;
  };
  const nFiles = Math.floor(rng() * 5);
  for (let i = 0; i < nFiles; i++) {
    const p = goodPath();
    if (p)
      files.push({ path: p, content: `#!/bin/sh\necho ${i} ${rng()}\n`, mode: pick([0o755, 0o644, 0o700, 0o750]) });
  }
  let managedDir: string | null = pick(GOOD_DIRS);
  let windowsDir: string | null = rng() < 0.5 ? 'C:\\enterprise\\hooks' : null;
  let kind = 'valid';
  if (rng() < 0.55) {
    kind = pick(RULES);
    const add = (p: string, extra: Partial<GenFile> = {}): void => {
      files.push({ path: p, content: 'x\n', mode: 0o755, ...extra });
    };
    const first = files[0]?.path ?? 'base.sh';
    if (!files[0]) add(first);
    switch (kind) {
      case 'f_dot_segment':
        add('lib/./util.sh');
        break;
      case 'f_dot_prefix':
        add('./x');
        break;
      case 'f_dotdot':
        add(pick(['../x', 'a/../../x', 'a/..']));
        break;
      case 'f_empty_segment':
        add(pick(['a//b', 'dir/']));
        break;
      case 'f_absolute':
        add(pick(['/etc/passwd', 'C:\\x.bat', 'c:x']));
        break;
      case 'f_home':
        add('~/x.sh');
        break;
      case 'f_newline':
        add('a\nb.sh');
        break;
      case 'f_tab':
        add('a\tb.sh');
        break;
      case 'f_ctl01':
        add('a\u0001b.sh');
        break;
      case 'f_del':
        add('a\u007fb.sh');
        break;
      case 'f_c1':
        add('a\u0085b.sh');
        break;
      case 'f_long_segment':
        add('s'.repeat(256 + Math.floor(rng() * 100)));
        break;
      case 'f_long_name':
        add(Array.from({ length: 6 }, () => 'n'.repeat(100)).join('/'));
        break;
      case 'f_too_long_for_dto':
        add('n'.repeat(1025 + Math.floor(rng() * 50)));
        break;
      case 'f_too_deep':
        add(Array.from({ length: 33 }, () => 'd').join('/'));
        break;
      case 'f_case_dup':
        add(first.toUpperCase() === first ? first.toLowerCase() : first.toUpperCase());
        break;
      case 'f_nfc_dup':
        add('caf\u00e9.sh');
        add('cafe\u0301.sh');
        break;
      case 'f_exact_dup':
        add(first);
        break;
      case 'f_file_dir':
        add(`${first}/inner.sh`);
        break;
      case 'f_dir_file':
        add('pkg/mod.sh');
        add('PKG');
        break;
      case 'f_backslash':
        add('a\\b.sh');
        break;
      case 'f_win_char':
        add(pick(['ab:c.sh', 'a*b', 'a?b', 'a|b', 'a"b', 'a<b']));
        break;
      case 'f_trailing_dot':
        add(pick(['x.', 'x ', 'dir./y']));
        break;
      case 'f_device':
        add(pick(['con', 'NUL.txt', 'lib/com1.sh', 'aux']));
        break;
      case 'f_mode_777':
        add('w.sh', { mode: 0o777 });
        break;
      case 'f_mode_666':
        add('w.sh', { mode: 0o666 });
        break;
      case 'f_mode_000':
        add('w.sh', { mode: 0o000 });
        break;
      case 'f_big_file':
        add('big.bin', { content: 'b'.repeat(1024 * 1024 + 1), mode: 0o644 });
        break;
      case 'f_no_managed_dir':
        managedDir = null;
        windowsDir = null;
        break;
      default:
        if (kind in BAD_DIRS) managedDir = BAD_DIRS[kind]!;
        else windowsDir = BAD_WIN_DIRS[kind]!;
    }
  }
  const carried =
    rng() < 0.5
      ? 'tool_timeout_sec = 60.0\nratio = 1.0\nlimit = 1e3\nzero = -0.0\ncount = 7\nday = 2026-12-01\n\n' +
        '[rules]\nweights = [1.0, 2, 2.5]\nsince = 1979-05-27T07:32:00Z\nat = 07:32:00\n\n' +
        '[mcp_servers.docs]\ncommand = "npx"\ntool_timeout_sec = 30.0\nstartup_timeout_sec = 10\n\n'
      : '';
  let toml = carried + '[hooks]\n';
  if (managedDir !== null) toml += `managed_dir = ${JSON.stringify(managedDir)}\n`;
  if (windowsDir !== null) toml += `windows_managed_dir = ${JSON.stringify(windowsDir)}\n`;
  const dir = managedDir && managedDir.startsWith('/') ? managedDir : '/opt/hw/hooks';
  toml +=
    `\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
    `command = ${JSON.stringify(`${dir}/${files[0]?.path ?? 'check.sh'}`)}\n`;
  return { toml, files, managedDir, kind };
}

// True when a diagnostic says where the problem is.
const located = (d: { path?: string; field?: string; line?: number; column?: number }): boolean =>
  !!(d.path ?? d.field) || (d.line !== undefined && d.column !== undefined);

// The non-hook sections of a TOML text, integers as bigint (so 60 and 60.0 differ).
const carriedOf = (text: string): Record<string, unknown> => {
  const { hooks: _hooks, ...rest } = parseToml(text, { integersAsBigInt: true });
  return rest;
};

const pair = generateKeyPairSync('ed25519');
const KEY = { kid: 'ed25519:prop', publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };

// Signs a bundle of the given content (the API's manifest builder, a test key).
function bundleOf(revision: number, toml: string, files: Array<{ path: string; content: Buffer; mode: number }>) {
  const manifest = buildManifest({
    group: { id: 'g', name: 'g' },
    policyId: 'p',
    policyVersion: revision,
    policyVersionId: 'pv',
    revision,
    issuedAt: new Date(0),
    requirementsToml: toml,
    files,
  });
  const text = serializeManifest(manifest);
  return {
    manifest: text,
    signature: sign(null, Buffer.from(text), pair.privateKey).toString('base64'),
    keyId: KEY.kid,
  };
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('content contract property', () => {
  let tmp: string;
  beforeAll(async () => {
    const base = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    tmp = await fs.mkdtemp(path.join(base, 'hw-prop-'));
  });
  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it(`${COUNT} seeded versions: API accepts ⇔ agent verifies and applies; refusals are located`, async () => {
    const rng = prng(SEED);
    const versions = Array.from({ length: COUNT }, () => generate(rng));
    const seen = new Map<string, { accepted: number; refused: number }>();
    const mismatches: string[] = [];
    let accepted = 0;
    let applies = 0;
    let tVerify = 0;
    let tApply = 0;
    let tApi = 0;
    // LANES agents (one root each) take every LANES-th version in order, concurrently: file I/O overlaps.
    const lane = async (n: number): Promise<void> => {
      const root = path.join(tmp, `root-${n}`);
      await fs.mkdir(root);
      const layer = new Layer({ root, stateDir: path.join(root, 'var/lib/hookwarden-agent') });
      let applied: { revision: number; digest: string } | null = null;
      for (let i = n; i < COUNT; i += LANES) {
        const v = versions[i]!;
        const ta = performance.now();
        const stat = seen.get(v.kind) ?? { accepted: 0, refused: 0 };
        seen.set(v.kind, stat);
        // The API: the request schema, then the authoring function (pure; runs before any row is written).
        const body = createVersionSchema.safeParse({ toml: v.toml, files: v.files, baseVersion: 0 });
        let api: { ok: true; toml: string; files: Array<{ path: string; content: Buffer; mode: number }> } | null =
          null;
        if (!body.success) {
          const issues = zodIssues(body.error);
          if (!issues.every(located)) mismatches.push(`#${i} ${v.kind}: unlocated DTO error ${JSON.stringify(issues)}`);
        } else {
          const prepared = prepareVersion(body.data);
          if (prepared.ok) api = { ok: true, toml: prepared.version.toml, files: prepared.version.files };
          else if (!prepared.errors.every(located))
            mismatches.push(`#${i} ${v.kind}: unlocated error ${JSON.stringify(prepared.errors)}`);
        }
        tApi += performance.now() - ta;
        // The agent: verify + materialize the same content (what the API would serve, or the raw content if refused).
        const revision = i + 1;
        const files =
          api?.files ?? v.files.map((f) => ({ path: f.path, content: Buffer.from(f.content), mode: f.mode }));
        const bundle = bundleOf(revision, api?.toml ?? v.toml, files);
        let agentOk = false;
        let agentError = '';
        let materialized = false;
        try {
          const t0 = performance.now();
          const vb = verifyBundle(bundle, [KEY], applied?.revision ?? null, applied?.digest ?? null, 'linux');
          const t1 = performance.now();
          tVerify += t1 - t0;
          // Refused by the API: the agent must refuse too (in verify, or when materializing). Accepted: materialized
          // for every APPLY_EVERY-th version of a lane (the disk work dominates), verified for all.
          materialized = !api || Math.floor(i / LANES) % APPLY_EVERY === 0;
          if (materialized) {
            await layer.apply(vb);
            tApply += performance.now() - t1;
            applied = { revision, digest: vb.digest };
            applies++;
          }
          agentOk = true;
        } catch (err) {
          agentError = err instanceof Error ? err.message : String(err);
          if (!(err instanceof BundleRejected)) mismatches.push(`#${i} ${v.kind}: agent crashed: ${agentError}`);
        }
        if (api) stat.accepted++;
        else stat.refused++;
        if (!!api !== agentOk) {
          mismatches.push(
            `#${i} ${v.kind}: API ${api ? 'accepted' : 'refused'}, agent ${agentOk ? 'applied' : `refused (${agentError})`}` +
              ` ${JSON.stringify(v.files.map((f) => f.path))} ${v.managedDir}`,
          );
        }
        if (api && agentOk) accepted++;
        if (api && agentOk && materialized) {
          // The visible layer is exactly the version; the non-hook sections keep their types.
          const written = await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8');
          if (written !== api.toml) mismatches.push(`#${i}: requirements.toml on disk differs`);
          if (!isDeepStrictEqual(carriedOf(written), carriedOf(v.toml)))
            mismatches.push(`#${i}: non-hook sections changed`);
          if (v.managedDir) {
            for (const f of api.files) {
              const p = path.join(root, v.managedDir, f.path);
              const data = await fs.readFile(p).catch(() => null);
              const mode = (await fs.stat(p).catch(() => null))?.mode;
              if (!data || sha(data) !== sha(f.content) || (mode! & 0o777) !== f.mode)
                mismatches.push(`#${i}: ${f.path} not materialized exactly`);
            }
          }
        } else if (applied) {
          // A refused version leaves the last good layer in force.
          const cur = await layer.current();
          if (cur?.meta.revision !== applied.revision) mismatches.push(`#${i} ${v.kind}: the last good layer is gone`);
        }
        if (mismatches.length >= 10) break;
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, n) => lane(n)));
    console.log(
      `content property: ${COUNT} versions (seed ${SEED}), ${accepted} accepted and verified (${applies} materialized), ` +
        `${COUNT - accepted} refused (API ${Math.round(tApi)} ms, verify ${Math.round(tVerify)} ms, ` +
        `apply ${Math.round(tApply)} ms)`,
    );
    expect(mismatches).toEqual([]);
    // Every rule was exercised, and every broken rule was refused every time.
    for (const rule of RULES) {
      const s = seen.get(rule);
      expect(s?.refused ?? 0, `rule ${rule}`).toBeGreaterThanOrEqual(5);
      expect(s?.accepted ?? 0, `rule ${rule} accepted`).toBe(0);
    }
    expect(accepted).toBeGreaterThan(COUNT / 3);
  }, 120_000);

  describe('through the real API and a real agent process', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi();
    });
    afterAll(async () => {
      await api?.close();
    });

    it(`a sample of ${SAMPLE * 2} versions: accepted ones apply on the agent, refused ones are 400 with locations`, async () => {
      const { groupId, policyId } = await createGroupWithPolicy(api);
      const admin = (method: string, p: string, body?: unknown) =>
        call(api.baseUrl, method, p, { token: api.adminToken, body });
      const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'prop' })).body.secret;
      const root = path.join(tmp, 'agent-root');
      const stateDir = path.join(tmp, 'agent-state');
      await fs.mkdir(path.join(root, 'etc'), { recursive: true });
      await fs.writeFile(path.join(root, 'etc/machine-id'), `prop-${Date.now()}-machine\n`);
      const enrolled = await runAgent([
        'enroll',
        '--server',
        api.baseUrl,
        '--secret',
        secret,
        '--state-dir',
        stateDir,
        '--root',
        root,
      ]);
      expect(enrolled.code, enrolled.stderr).toBe(0);
      const rng = prng(SEED ^ 0x5a5a);
      let good = 0;
      let bad = 0;
      let number = 0;
      while (good < SAMPLE || bad < SAMPLE) {
        const v = generate(rng);
        const refusedKind = v.kind !== 'valid';
        if ((refusedKind && bad >= SAMPLE) || (!refusedKind && good >= SAMPLE)) continue;
        if (!refusedKind && (!v.managedDir || !v.toml.includes('60.0'))) continue;
        const res = await admin('POST', `/v1/policies/${policyId}/versions`, {
          toml: v.toml,
          files: v.files,
          baseVersion: number,
        });
        if (refusedKind) {
          bad++;
          expect(res.status, `${v.kind}: ${JSON.stringify(res.body)}`).toBe(400);
          expect(res.body.error.details.length).toBeGreaterThan(0);
          for (const d of res.body.error.details) expect(located(d), JSON.stringify(d)).toBe(true);
          continue;
        }
        good++;
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        number = res.body.number;
        const rel = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: res.body.id });
        expect(rel.status, JSON.stringify(rel.body)).toBe(201);
        const run = await runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);
        expect(run.code, run.stderr).toBe(0);
        const layerOnDisk = await visibleLayer(root, v.managedDir!);
        const want: Record<string, string> = { 'requirements.toml': res.body.toml };
        for (const f of v.files) want[f.path] = `${f.mode.toString(8)}:${f.content}`;
        expect(layerOnDisk).toEqual(want);
        const written = await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8');
        expect(carriedOf(written)).toEqual(carriedOf(v.toml));
      }
    }, 120_000);
  });
});
