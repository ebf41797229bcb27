// Shared helpers for the start and test scripts: run commands, make sure the database exists.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bin = (name) => path.join(root, 'node_modules', '.bin', name);

// Runs a command to completion (in `cwd`, relative to the repository), inheriting stdio; rejects on a non-zero exit.
export function run(cmd, args, env = process.env, cwd = '.') {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: path.join(root, cwd), env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal ?? code})`)),
    );
  });
}

// Creates the database named in `url` when it does not exist yet.
export async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}
