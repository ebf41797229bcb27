// Fuzz: ≥ 5,000 generated and mutated policy documents (TOML and JSON forms, with managed files) against one API.
// Asserts: no 5xx, every 4xx names a location, and no version row exists for any rejected document.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call, postJson } from '../support/http';
import { createPolicy, SCRIPT, VALID_TOML } from '../support/policies';

const DOCUMENTS = Number(process.env.HW_FUZZ_DOCUMENTS ?? 5000);
const CONCURRENCY = 16;
const SEED = Number(process.env.HW_FUZZ_SEED ?? 0x5eed_4a11);

// mulberry32: a small seeded PRNG so a failure reproduces from its seed.
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

const EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'Bogus',
  'pretooluse',
  '',
];
const ODD = [
  '\u202e', // right-to-left override
  '\u200b', // zero-width space
  '\ufeff',
  '\u0000',
  '\ud800', // lone surrogate
  '\udc00',
  '😀',
  'e\u0301',
  '\u2028',
  '𝕳𝖔𝖔𝖐',
  '"',
  "'",
  '\\',
  '\n',
  '[',
  ']',
  '=',
  '#',
  '{',
  '}',
  ',',
  '.',
  '\t',
  '\r',
  'ﬃ',
];
const PATHS = [
  '../escape.sh',
  '/etc/passwd',
  'a/../../b',
  'C:\\evil.bat',
  'a//b',
  './a',
  'a/./b',
  '~/x',
  '',
  '.',
  '..',
  'a\u0000b',
  '\u2024\u2024/x',
  '．．/x',
  'a/b/c/d.sh',
  'x'.repeat(2000),
  'scripts/ok.sh',
  'pre_tool_use.py',
  'a\\b',
  'ok \u202e.sh',
  '\ud800.sh',
];

class Gen {
  constructor(readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  str(max = 20): string {
    let s = '';
    const n = this.int(max + 1);
    for (let i = 0; i < n; i++) s += this.chance(0.2) ? this.pick(ODD) : String.fromCharCode(32 + this.int(95));
    return s;
  }
  // A value of a random type (the wrong type, often).
  anyValue(depth = 0): unknown {
    switch (this.int(depth > 3 ? 6 : 8)) {
      case 0:
        return this.str();
      case 1:
        return this.int(1e6) - 5e5;
      case 2:
        return this.r() * 1e9;
      case 3:
        return this.chance(0.5);
      case 4:
        return null;
      case 5:
        return this.pick([1e309 === Infinity ? 1.5e308 : 0, -0, 2 ** 53 + 1, 0.5]);
      case 6:
        return Array.from({ length: this.int(4) }, () => this.anyValue(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.str(8), this.anyValue(depth + 1)]));
    }
  }
  nested(depth: number): unknown {
    let v: unknown = this.str(5);
    for (let i = 0; i < depth; i++) v = this.chance(0.5) ? [v] : { [this.str(3) || 'k']: v };
    return v;
  }
  handler(): Record<string, unknown> {
    const h: Record<string, unknown> = {
      type: this.pick(['command', 'command', 'command', 'prompt', 'agent', 'bogus']),
    };
    if (this.chance(0.9))
      h.command = this.chance(0.8)
        ? `/opt/hw/${this.pick(['a.sh', 'b.py', 'missing.sh'])} ${this.str(10)}`
        : this.anyValue();
    if (this.chance(0.4)) h.timeout = this.chance(0.7) ? this.int(100_000) : this.anyValue();
    if (this.chance(0.2)) h.async = this.chance(0.8) ? this.chance(0.5) : this.anyValue();
    if (this.chance(0.2)) h.statusMessage = this.str(40);
    if (this.chance(0.2)) h.additionalContextLimit = this.chance(0.7) ? this.int(5000) - 10 : this.anyValue();
    if (this.chance(0.05)) h[this.str(6) || 'x'] = this.anyValue();
    return h;
  }
  // A structured policy: mostly plausible, with random wrong types and odd keys.
  policy(): Record<string, unknown> {
    const hooks: Record<string, unknown> = {};
    if (this.chance(0.8))
      hooks.managed_dir = this.chance(0.8) ? '/opt/hw' : this.pick(['hw', '~/.hw', 'C:\\hw', this.str(10)]);
    if (this.chance(0.3))
      hooks.windows_managed_dir = this.pick(['C:\\hw', '\\\\srv\\share\\hw', '/opt/hw', this.str(10)]);
    for (let e = this.int(4); e > 0; e--) {
      hooks[this.pick(EVENTS)] = this.chance(0.9)
        ? Array.from({ length: 1 + this.int(3) }, () => ({
            ...(this.chance(0.7)
              ? { matcher: this.pick(['^Bash$', 'Edit|Write', '', '*', '([', '(?<=x)', this.str(8)]) }
              : {}),
            hooks: this.chance(0.95) ? Array.from({ length: 1 + this.int(3) }, () => this.handler()) : this.anyValue(),
          }))
        : this.anyValue();
    }
    const doc: Record<string, unknown> = {};
    if (this.chance(0.9)) doc.hooks = hooks;
    if (this.chance(0.4)) doc.allow_managed_hooks_only = this.chance(0.8) ? this.chance(0.5) : this.anyValue();
    if (this.chance(0.3)) doc.features = this.chance(0.8) ? { hooks: this.chance(0.7) } : this.anyValue();
    if (this.chance(0.3)) doc.rules = { prefix_rules: [{ pattern: [this.str(5)], decision: 'forbidden' }] };
    if (this.chance(0.2)) doc[this.str(10) || 'extra'] = this.anyValue();
    return doc;
  }
  files(): unknown {
    if (this.chance(0.03)) return this.anyValue();
    return Array.from({ length: this.int(4) }, () => {
      const f: Record<string, unknown> = {
        path: this.chance(0.6) ? this.pick(['a.sh', 'b.py', 'lib/c.sh']) : this.pick(PATHS),
        content: this.chance(0.995) ? this.str(200) : 'x'.repeat(1024 * 1024 + 1),
      };
      if (this.chance(0.3))
        f.mode = this.chance(0.7) ? this.pick([0o644, 0o755, 0o600]) : this.pick([-1, 0o1777, 1.5, '755', 2 ** 31]);
      if (this.chance(0.15)) {
        f.encoding = this.pick(['base64', 'base64', 'hex', 'utf8']);
        if (f.encoding === 'base64' && this.chance(0.6)) f.content = Buffer.from(this.str(50)).toString('base64');
      }
      if (this.chance(0.02)) f[this.str(4) || 'y'] = 1;
      return f;
    });
  }
  // Random edits of a TOML text: deletions, insertions of syntax characters and odd Unicode, truncation, duplication.
  mutateToml(text: string): string {
    let t = text;
    for (let m = 1 + this.int(4); m > 0; m--) {
      const at = this.int(t.length + 1);
      switch (this.int(6)) {
        case 0:
          t = t.slice(0, at) + t.slice(at + 1 + this.int(5));
          break;
        case 1:
          t = t.slice(0, at) + this.pick(ODD) + t.slice(at);
          break;
        case 2:
          t = t.slice(0, at);
          break;
        case 3: {
          const lines = t.split('\n');
          const i = this.int(lines.length);
          lines.splice(i, 0, lines[this.int(lines.length)] ?? '');
          t = lines.join('\n');
          break;
        }
        case 4:
          t = t.replace(/= (\d+)/, `= "${this.str(5)}"`).replace(/= true/, '= 1');
          break;
        default:
          t = t.slice(0, at) + this.str(10) + t.slice(at);
      }
    }
    return t;
  }
}

// A plain object (not null, not an array)?
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Renders a structured value as rough TOML (not always valid: that is the point).
function roughToml(doc: Record<string, unknown>): string {
  const out: string[] = [];
  const scalar = (v: unknown): string =>
    typeof v === 'string'
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `[${v.map(scalar).join(', ')}]`
        : v === null
          ? '""'
          : typeof v === 'number' || typeof v === 'boolean'
            ? String(v)
            : '{}';
  for (const [k, v] of Object.entries(doc))
    if (typeof v !== 'object' || v === null || Array.isArray(v)) out.push(`${JSON.stringify(k)} = ${scalar(v)}`);
  const hooks = doc.hooks;
  if (hooks && typeof hooks === 'object' && !Array.isArray(hooks)) {
    out.push('[hooks]');
    for (const [k, v] of Object.entries(hooks)) if (!Array.isArray(v)) out.push(`${JSON.stringify(k)} = ${scalar(v)}`);
    for (const [event, groups] of Object.entries(hooks)) {
      if (!Array.isArray(groups)) continue;
      for (const g of (groups as unknown[]).filter(isObject)) {
        out.push(`[[hooks.${JSON.stringify(event)}]]`);
        if (g.matcher !== undefined) out.push(`matcher = ${scalar(g.matcher)}`);
        for (const h of Array.isArray(g.hooks) ? (g.hooks as unknown[]).filter(isObject) : []) {
          out.push(`[[hooks.${JSON.stringify(event)}.hooks]]`);
          for (const [k, v] of Object.entries(h)) out.push(`${JSON.stringify(k)} = ${scalar(v)}`);
        }
      }
    }
  }
  return out.join('\n') + '\n';
}

// One generated request body.
function generate(g: Gen): unknown {
  const files = g.files();
  const kind = g.int(20);
  if (kind < 6) return { toml: g.mutateToml(g.chance(0.5) ? VALID_TOML : roughToml(g.policy())), files };
  if (kind < 9) return { toml: roughToml(g.policy()), files };
  if (kind < 14) return { policy: g.policy(), files };
  if (kind === 14) return { policy: g.nested(20 + g.int(3000)), files };
  if (kind === 15) {
    const d = 10 + g.int(3000);
    return { toml: `x = ${'['.repeat(d)}1${']'.repeat(d)}\n`, files };
  }
  if (kind === 16) {
    const big = g.str(3).repeat(20_000 + g.int(40_000));
    return g.chance(0.5)
      ? {
          toml: `[hooks]\nmanaged_dir = "/opt/hw"\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(big)}\n`,
          files,
        }
      : {
          policy: { hooks: { Stop: [{ hooks: [{ type: 'command', command: big }] }] }, [big.slice(0, 5000)]: 1 },
          files,
        };
  }
  if (kind === 17) return { toml: VALID_TOML, files: [SCRIPT] };
  if (kind === 18)
    return g.pick<unknown>([
      { toml: g.anyValue(), files },
      { policy: g.anyValue(), files },
      { toml: VALID_TOML, policy: {} },
      {},
      [],
      { toml: VALID_TOML, files, message: g.anyValue() },
      { toml: VALID_TOML, [g.str(5) || 'z']: 1 },
    ]);
  return { toml: Array.from({ length: 1 + g.int(30) }, () => g.str(60)).join('\n'), files };
}

// Is a rejection located (every detail has line+column or a path)?
function located(body: any): boolean {
  const details = body?.error?.details;
  if (!Array.isArray(details) || details.length === 0) return false;
  return details.every(
    (d: any) =>
      (typeof d.line === 'number' && typeof d.column === 'number') ||
      (typeof d.path === 'string' && d.path.startsWith('$')),
  );
}

describe('policy authoring fuzz', () => {
  let api: TestApi;
  let db: pg.Client;
  beforeAll(async () => {
    api = await startTestApi();
    db = new pg.Client({ connectionString: api.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await api?.close();
  });

  it(`survives ${DOCUMENTS} generated and mutated documents (seed ${SEED})`, async () => {
    const policies = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) => createPolicy(api.baseUrl, api.adminToken, `fuzz-${i}`)),
    );
    const problems: string[] = [];
    const createdDigests = new Set<string>();
    const counts = { created: 0, unchanged: 0, rejected: 0 };
    let next = 0;
    const started = Date.now();
    await Promise.all(
      policies.map(async (policyId) => {
        let current = 0;
        for (;;) {
          const index = next++;
          if (index >= DOCUMENTS) return;
          const g = new Gen(prng(SEED + index));
          const body = generate(g);
          if (body && typeof body === 'object' && !Array.isArray(body) && g.chance(0.9))
            (body as any).baseVersion = current;
          const res = await postJson(api.baseUrl, `/v1/policies/${policyId}/versions`, api.adminToken, body);
          if (res.status >= 500) problems.push(`#${index}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          else if (res.status === 201) {
            counts.created++;
            current = res.body.number;
            createdDigests.add(`${policyId} ${res.body.digest}`);
          } else if (res.status === 200) counts.unchanged++;
          else if (res.status === 428 && (body as any).baseVersion === undefined) counts.rejected++;
          else {
            counts.rejected++;
            if (res.status !== 400 || !located(res.body)) {
              problems.push(`#${index}: ${res.status} without a location: ${JSON.stringify(res.body).slice(0, 300)}`);
            }
          }
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz: ${DOCUMENTS} documents in ${seconds.toFixed(1)} s (${Math.round(DOCUMENTS / seconds)}/s); ` +
        `created ${counts.created}, unchanged ${counts.unchanged}, rejected ${counts.rejected}`,
    );
    expect(problems.slice(0, 20)).toEqual([]);
    expect(counts.created + counts.unchanged + counts.rejected).toBe(DOCUMENTS);
    expect(counts.rejected).toBeGreaterThan(DOCUMENTS / 2);
    expect(counts.created).toBeGreaterThan(0);
    // No version row exists for any rejected document: the stored versions are exactly the created ones.
    const rows = await db.query('SELECT policy_id, digest FROM policy_versions WHERE policy_id = ANY($1::uuid[])', [
      policies,
    ]);
    expect(rows.rowCount).toBe(counts.created);
    expect(new Set(rows.rows.map((r) => `${r.policy_id} ${r.digest}`))).toEqual(createdDigests);
    const verify = await call(api.baseUrl, 'GET', '/v1/audit-log/verify', { token: api.adminToken });
    expect(verify.body.ok).toBe(true);
  }, 180_000);
});
