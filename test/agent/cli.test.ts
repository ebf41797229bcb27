import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = path.resolve(__dirname, '../../apps/agent-sync/dist/cli/main.js');

describe('hookwarden-agent CLI', () => {
  it('prints its version', () => {
    const out = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toBe('0.1.0');
  });

  it('prints help naming the program', () => {
    const out = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(out).toContain('Usage: hookwarden-agent');
  });
});
