// The versions the CLIs print are the packages' versions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_CORE_VERSION } from '@hookwarden/hook-core';
import { AGENT_VERSION } from '../../apps/agent-sync/src/version';

const version = (pkg: string): string =>
  (JSON.parse(readFileSync(path.resolve(__dirname, '../..', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;

describe('versions', () => {
  it('hookwarden-agent --version and zerotwo-hooks --version print their package.json versions', () => {
    expect(AGENT_VERSION).toBe(version('apps/agent-sync'));
    expect(HOOK_CORE_VERSION).toBe(version('libs/hook-core'));
  });
});
