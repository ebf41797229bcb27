// Which users' ZeroTwo homes the agent inventories: `all` (people's accounts on this machine), `current`, `none`,
// or explicit `user=homedir` entries.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InventoryHome } from '@hookwarden/hook-core';

/** Most homes inventoried on one machine. */
const MAX_HOMES = 500;

// Parses `--inventory-users` (all | current | none | name,name) and `--inventory-home user=dir` into homes.
export function resolveHomes(
  users: string,
  explicit: string[],
  platform: NodeJS.Platform = process.platform,
): InventoryHome[] {
  const homes: InventoryHome[] = [];
  for (const spec of explicit) {
    const eq = spec.indexOf('=');
    if (eq <= 0 || !path.isAbsolute(spec.slice(eq + 1))) {
      throw new Error(`--inventory-home: expected user=/absolute/home, got ${JSON.stringify(spec)}`);
    }
    homes.push({ user: spec.slice(0, eq), homeDir: spec.slice(eq + 1) });
  }
  if (users === 'none') return homes;
  if (users === 'current') return [...homes, { user: os.userInfo().username, homeDir: os.homedir() }];
  const known = machineUsers(platform);
  if (users === 'all') homes.push(...known);
  else {
    const byName = new Map(known.map((h) => [h.user, h]));
    for (const name of users.split(',').map((u) => u.trim())) {
      const home = byName.get(name);
      if (home) homes.push(home);
    }
  }
  const seen = new Set<string>();
  return homes.filter((h) => !seen.has(h.homeDir) && seen.add(h.homeDir)).slice(0, MAX_HOMES);
}

// People's accounts: Linux /etc/passwd with uid ≥ 1000 and a real shell; macOS /Users/*; Windows C:\Users\*.
function machineUsers(platform: NodeJS.Platform): InventoryHome[] {
  if (platform === 'linux') {
    let text = '';
    try {
      text = readFileSync('/etc/passwd', 'utf8').slice(0, 4 * 1024 * 1024);
    } catch {
      return [];
    }
    const out: InventoryHome[] = [];
    for (const line of text.split('\n')) {
      const [name, , uid, , , home, shell] = line.split(':');
      if (!name || !home || Number(uid) < 1000 || Number(uid) === 65534) continue;
      if (shell && /(nologin|false)$/.test(shell)) continue;
      if (isDir(home)) out.push({ user: name, homeDir: home });
    }
    return out;
  }
  const base = platform === 'darwin' ? '/Users' : platform === 'win32' ? 'C:\\Users' : null;
  if (!base) return [];
  try {
    return readdirSync(base)
      .filter(
        (n) => !['Shared', 'Public', 'Default', 'Default User', 'All Users', 'Guest'].includes(n) && !n.startsWith('.'),
      )
      .map((n) => ({ user: n, homeDir: path.join(base, n) }))
      .filter((h) => isDir(h.homeDir));
  } catch {
    return [];
  }
}

// Whether a path is a directory.
function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
