// `npm run lint:openapi`: builds the API's OpenAPI document from the compiled app (no database needed), lints it with
// Redocly (recommended ruleset) and Spectral (spectral:oas), and fails on any error or on any warning not listed in
// apps/api/openapi-lint-baseline.json. `--write-baseline` rewrites the baseline; `--out FILE` keeps the document.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const BASELINE = path.join(root, 'apps/api/openapi-lint-baseline.json');
const args = process.argv.slice(2);

/** Builds the served document from apps/api/dist (run `npm run build` first). */
async function buildDocument() {
  const dist = path.join(process.env.HW_OPENAPI_APP_ROOT ?? root, 'apps/api/dist');
  const { createApp, openApiDocumentOf } = require(path.join(dist, 'bootstrap.js'));
  const { loadConfig } = require(path.join(dist, 'config/config.schema.js'));
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'test', PORT: '0' });
  const app = await createApp(config, { bufferLogs: false });
  try {
    return JSON.parse(JSON.stringify(openApiDocumentOf(app)));
  } finally {
    await app.close();
  }
}

/** Runs a linter CLI from node_modules/.bin and parses its JSON report. */
function runJson(bin, argv) {
  const res = spawnSync(path.join(root, 'node_modules/.bin', bin), argv, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const out = res.stdout.trim();
  const start = out.search(/[[{]/);
  if (start === -1) throw new Error(`${bin} produced no report (exit ${res.status}): ${res.stderr}`);
  return JSON.parse(out.slice(start));
}

/** Problems as `tool severity rule at path: message`, severity error or warning. */
function lint(file) {
  const problems = [];
  const redocly = runJson('redocly', ['lint', file, '--format=json', '--extends=recommended', '--max-problems=100000']);
  for (const p of redocly.problems ?? []) {
    const where = p.location?.[0]?.pointer ?? '';
    problems.push({ tool: 'redocly', severity: p.severity, rule: p.ruleId, where, message: p.message });
  }
  const ruleset = path.join(root, '.spectral.yaml');
  const spectral = runJson('spectral', ['lint', file, '--ruleset', ruleset, '--format', 'json', '--quiet']);
  for (const p of spectral) {
    const severity = ['error', 'warn', 'info', 'hint'][p.severity] ?? 'error';
    if (severity !== 'error' && severity !== 'warn') continue;
    problems.push({
      tool: 'spectral',
      severity: severity === 'warn' ? 'warn' : 'error',
      rule: p.code,
      where: `#/${(p.path ?? []).join('/')}`,
      message: p.message,
    });
  }
  return problems;
}

const key = (p) => `${p.tool} ${p.rule} ${p.where}`;

const doc = await buildDocument();
const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-openapi-'));
const file = path.join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(doc, null, 2));
const outAt = args.indexOf('--out');
if (outAt !== -1 && args[outAt + 1]) writeFileSync(args[outAt + 1], JSON.stringify(doc, null, 2));
let problems;
try {
  problems = lint(file);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const errors = problems.filter((p) => p.severity === 'error');
const warnings = problems.filter((p) => p.severity !== 'error');
const operations = Object.values(doc.paths).reduce(
  (n, ops) => n + Object.keys(ops).filter((m) => ['get', 'put', 'post', 'patch', 'delete', 'head'].includes(m)).length,
  0,
);
const count = (tool, sev) =>
  problems.filter((p) => p.tool === tool && (sev === 'error' ? p.severity === 'error' : p.severity !== 'error')).length;
process.stdout.write(
  `OpenAPI: ${operations} operations; redocly ${count('redocly', 'error')} errors, ${count('redocly', 'warn')} warnings; ` +
    `spectral ${count('spectral', 'error')} errors, ${count('spectral', 'warn')} warnings\n`,
);
if (args.includes('--write-baseline')) {
  writeFileSync(BASELINE, `${JSON.stringify(warnings.map(key).sort(), null, 2)}\n`);
  process.stdout.write(`wrote ${warnings.length} accepted warnings to ${path.relative(root, BASELINE)}\n`);
}
const accepted = new Set(JSON.parse(readFileSync(BASELINE, 'utf8')));
const fresh = warnings.filter((w) => !accepted.has(key(w)));
for (const p of [...errors, ...fresh]) {
  process.stderr.write(`  ${p.severity} ${p.tool} ${p.rule} ${p.where}: ${p.message}\n`);
}
if (errors.length > 0 || fresh.length > 0) {
  process.stderr.write(`OpenAPI lint failed: ${errors.length} errors, ${fresh.length} warnings not in the baseline\n`);
  process.exit(1);
}
