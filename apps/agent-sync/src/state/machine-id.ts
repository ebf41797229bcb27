// A stable machine id: /etc/machine-id, /var/lib/dbus/machine-id, macOS IOPlatformUUID, Windows MachineGuid, else one
// generated and kept.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFileAtomic } from './atomic-file';

const run = promisify(execFile);
export const MACHINE_ID_FILE = 'machine-id';

// Reads a trimmed file, or null.
async function readTrimmed(file: string): Promise<string | null> {
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    return text.length >= 8 ? text : null;
  } catch {
    return null;
  }
}

// Finds the machine id; `root` prefixes the system files (tests), `stateDir` holds a generated fallback.
export async function machineId(stateDir: string, root = '/'): Promise<string> {
  for (const f of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    const id = await readTrimmed(path.join(root, f));
    if (id) return id;
  }
  if (process.platform === 'darwin' && root === '/') {
    try {
      const { stdout } = await run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']);
      const m = /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(stdout);
      if (m) return m[1]!;
    } catch {
      // fall through
    }
  }
  if (process.platform === 'win32' && root === '/') {
    try {
      const reg = path.join(process.env.SystemRoot ?? 'C:\\Windows', 'System32', 'reg.exe');
      const { stdout } = await run(reg, ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid'], {
        timeout: 10_000,
        windowsHide: true,
      });
      const m = /MachineGuid\s+REG_SZ\s+([0-9A-Fa-f-]{32,40})/.exec(stdout);
      if (m) return m[1]!.toLowerCase();
    } catch {
      // fall through
    }
  }
  const file = path.join(stateDir, MACHINE_ID_FILE);
  const kept = await readTrimmed(file);
  if (kept) return kept;
  const id = randomUUID();
  await writeFileAtomic(file, id + '\n', 0o600);
  return id;
}
