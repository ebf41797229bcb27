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

// Applies pending migrations with `prisma migrate deploy`, printing one line instead of Prisma's banner, config notes
// and the driver-adapter warning about the schema's url (Prisma 6.19 needs that url to load the schema offline; the
// adapter's connection is the one used). On failure everything Prisma printed is shown.
export function migrateDeploy(env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin('prisma'), ['migrate', 'deploy'], {
      cwd: root,
      env: { ...env, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) {
        process.stderr.write(output);
        reject(new Error(`prisma migrate deploy failed (${signal ?? code})`));
        return;
      }
      const applied = /The following migration\(s\) have been applied:([\s\S]*?)(?:All migrations|$)/.exec(output);
      const names = applied ? [...applied[1].matchAll(/└─ (\S+)\//g)].map((m) => m[1]) : [];
      const found = /(\d+) migrations? found/.exec(output)?.[1] ?? '?';
      console.log(
        names.length > 0
          ? `database: applied ${names.length} migration(s) (${names.join(', ')}); ${found} in total`
          : `database: up to date (${found} migrations)`,
      );
      resolve();
    });
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
