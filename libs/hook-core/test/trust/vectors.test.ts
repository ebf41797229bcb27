import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  discoverHooks,
  hookIdentity,
  hookHash,
  hookKeySuffix,
  loadConfigTomlText,
  loadHooksJsonText,
  normalizeTimeout,
  REFERENCE_WARNING_CODES,
  type HandlerConfig,
  type HookEvent,
} from '../support/core';
import { HAS_SHARED, TRUST_VECTORS_FILE } from '../../../../test/support/shared';

interface Vector {
  event: HookEvent;
  matcherPresent: boolean;
  matcher?: string;
  handler: HandlerConfig;
  keySuffix: string;
  timeoutSec: number;
  hash: string;
}
const file = JSON.parse(HAS_SHARED ? readFileSync(TRUST_VECTORS_FILE, 'utf8') : '{"vectors":[],"warnings":{}}') as {
  vectors: Vector[];
  warnings: Record<string, string[]>;
};

// Rebuilds the per-event hooks.json the vectors were taken from (groups in matcher-form order).
function hooksJsonFor(event: HookEvent): { hooks: Record<string, unknown[]> } {
  const groups: Array<{ matcher?: string; hooks: HandlerConfig[] }> = [];
  for (const v of file.vectors.filter((x) => x.event === event)) {
    const [, g, h] = v.keySuffix.split(':').map(Number) as [number, number, number];
    groups[g] ??= v.matcherPresent ? { matcher: v.matcher ?? '', hooks: [] } : { hooks: [] };
    groups[g].hooks[h] = v.handler;
  }
  return { hooks: { [event]: groups } };
}

describe.skipIf(!HAS_SHARED)('trust hash vectors from the reference engine', () => {
  it('has all 858 vectors', () => {
    expect(file.vectors).toHaveLength(858);
  });

  it('reproduces every hash and normalized timeout (direct)', () => {
    const bad = file.vectors.filter(
      (v) =>
        hookHash(v.event, v.matcherPresent ? v.matcher : undefined, v.handler, 'linux') !== v.hash ||
        normalizeTimeout(v.event, v.handler.timeout) !== v.timeoutSec,
    );
    expect(bad).toEqual([]);
  });

  it('reproduces every key suffix, hash, timeout and warning through discovery of a user hooks.json', () => {
    const events = [...new Set(file.vectors.map((v) => v.event))];
    for (const event of events) {
      const home = mkdtempSync(join(tmpdir(), 'hc-vectors-'));
      const hooksFile = join(home, 'hooks.json');
      writeFileSync(hooksFile, JSON.stringify(hooksJsonFor(event), null, 2));
      const d = discoverHooks({
        home,
        requirementsPath: null,
        systemDir: join(home, 'none'),
        platform: 'linux',
        env: {},
      });
      const expected = file.vectors.filter((v) => v.event === event);
      expect(d.hooks).toHaveLength(expected.length);
      for (const v of expected) {
        const hook = d.hooks.find((h) => h.key === `${hooksFile}:${v.keySuffix}`);
        expect(hook, v.keySuffix).toBeDefined();
        expect(hook?.hash).toBe(v.hash);
        expect(hook?.timeoutSec).toBe(v.timeoutSec);
        expect(hookKeySuffix(v.event, hook!.groupIndex, hook!.handlerIndex)).toBe(v.keySuffix);
      }
      const warnings = d.diagnostics
        .filter((x) => REFERENCE_WARNING_CODES.has(x.code))
        .map((x) => x.message.split(hooksFile).join('<file>'));
      expect(warnings.sort(), event).toEqual([...(file.warnings[event] ?? [])].sort());
    }
  });

  it('hashes JSON and TOML definitions of the same hook identically', () => {
    const json = loadHooksJsonText(
      JSON.stringify({
        hooks: {
          SessionStart: [
            {
              matcher: 'startup',
              hooks: [
                { type: 'command', command: 'echo hi', timeout: 0, statusMessage: 'S', additionalContextLimit: 5000 },
              ],
            },
          ],
        },
      }),
      '/x/hooks.json',
    );
    const toml = loadConfigTomlText(
      '[[hooks.SessionStart]]\nmatcher = "startup"\n\n[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "echo hi"\ntimeout = 0\nstatusMessage = "S"\nadditionalContextLimit = 5000\n',
      '/x/config.toml',
    );
    const hj = json.events[0]!.groups[0]!;
    const ht = toml.events[0]!.groups[0]!;
    expect(hookHash('SessionStart', hj.matcher, hj.handlers[0]!.handler, 'linux')).toBe(
      hookHash('SessionStart', ht.matcher, ht.handlers[0]!.handler, 'linux'),
    );
  });

  it('hashes commandWindows only on Windows', () => {
    const h: HandlerConfig = { type: 'command', command: 'echo hi', commandWindows: 'echo win' };
    expect(hookHash('Stop', undefined, h, 'linux')).toBe(
      hookHash('Stop', undefined, { type: 'command', command: 'echo hi' }, 'linux'),
    );
    expect(hookHash('Stop', undefined, h, 'win32')).not.toBe(hookHash('Stop', undefined, h, 'linux'));
  });
});

describe.skipIf(!HAS_SHARED)('canonical form', () => {
  it('the hash is sha256 over canonicalJson(hookIdentity(...))', () => {
    for (const v of file.vectors.slice(0, 200)) {
      const id = hookIdentity(v.event, v.matcherPresent ? v.matcher : undefined, v.handler, 'linux');
      expect(`sha256:${createHash('sha256').update(canonicalJson(id)).digest('hex')}`).toBe(v.hash);
    }
  });

  it('canonicalJson sorts keys at every level and is compact', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 'x' }], a: null, u: undefined })).toBe('{"a":null,"b":[{"c":"x","d":1}]}');
  });
});
