import { mkdtempSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCredentials, writeCredentials } from '../../apps/agent-sync/src/state/credentials';

const sample = {
  serverUrl: 'http://127.0.0.1:3000',
  endpointId: 'ep-1',
  groupId: 'g-1',
  credential: 'hwe_secret',
  machineId: 'm-1',
  publicKeys: [{ kid: 'k1', publicKeyPem: '-----BEGIN PUBLIC KEY-----\nX\n-----END PUBLIC KEY-----\n' }],
  enrolledAt: new Date().toISOString(),
};

describe('agent credentials state', () => {
  it('round-trips through an atomically written 0600 file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-state-'));
    expect(await readCredentials(dir)).toBeNull();
    await writeCredentials(dir, sample);
    expect(await readCredentials(dir)).toEqual(sample);
    expect(statSync(path.join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('names the file and field when the file is corrupt', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-state-'));
    await writeFile(path.join(dir, 'credentials.json'), JSON.stringify({ ...sample, serverUrl: 'nope' }));
    await expect(readCredentials(dir)).rejects.toThrow(/credentials\.json: serverUrl/);
  });
});
