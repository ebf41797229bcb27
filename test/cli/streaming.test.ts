// `hookwarden streaming …` and `hookwarden alerts …` as real child processes against the real API: create from a
// JSON file (the secret never shown), list with state and lag, rotate the secret from a file, replay, a bad body named
// with its location; alert rules created and listed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { runCli } from '../support/cli';

let api: TestApi;
let tmp: string;
const SECRET = 'whsec-cli-' + 'q'.repeat(40);

beforeAll(async () => {
  api = await startTestApi();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-cli-streaming-'));
});
afterAll(async () => {
  await api?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: api.adminToken,
  });

describe('hookwarden streaming / alerts', () => {
  it('creates, lists, rotates and replays a destination; secrets stay out of the output', async () => {
    const body = path.join(tmp, 'siem.json');
    writeFileSync(
      body,
      JSON.stringify({
        name: 'cli-hook',
        target: { type: 'webhook', url: 'https://127.0.0.1:9/h' },
        secrets: { webhookSecret: SECRET },
        streams: { auditLog: {} },
      }),
    );
    const created = await cli(['streaming', 'create', '-f', body, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).not.toContain(SECRET);
    const id = JSON.parse(created.stdout).id as string;
    const list = await cli(['streaming', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/cli-hook\s+webhook\s+active/);
    const secretFile = path.join(tmp, 'new.secret');
    writeFileSync(secretFile, 'whsec-next-' + 'r'.repeat(40) + '\n');
    const rotated = await cli(['streaming', 'rotate-secret', id, '--secret-file', secretFile, '--overlap', '60']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/previousSignsUntil: 20/);
    const replay = await cli(['streaming', 'replay', id, '--from-time', '2026-01-01T00:00:00Z']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/state: active/);
    writeFileSync(
      body,
      JSON.stringify({ name: 'bad', target: { type: 'syslog_tcp', host: 'h', port: 0 }, streams: { auditLog: {} } }),
    );
    const bad = await cli(['streaming', 'create', '-f', body]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('target.port');
  });

  it('creates and lists alert rules and alerts', async () => {
    const made = await cli([
      'alerts',
      'rule-create',
      '--name',
      'silent',
      '--kind',
      'endpoint_silent',
      '--param',
      'hours=12',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const rules = await cli(['alerts', 'rules']);
    expect(rules.stdout).toMatch(/silent\s+endpoint_silent\s+true\s+\{"hours":12\}/);
    const wrong = await cli(['alerts', 'rule-create', '--name', 'x', '--kind', 'nope']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('--kind');
    const alerts = await cli(['alerts', 'list', '--state', 'firing']);
    expect(alerts.code, alerts.stderr).toBe(0);
    expect(alerts.stdout).toContain('(none)');
  });
});
