// `node scripts/new-migration.mjs <name>`: writes a migration for the changes to prisma/schema since HEAD.
// (Diffs the committed schema against the working one: `migrate dev` needs a shadow database, which the
// offline adapter cannot drop cleanly; see TOOLCHAIN.md.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bin, root } from './lib.mjs';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/new-migration.mjs <snake_case_name>');
  process.exit(2);
}
const old = mkdtempSync(path.join(os.tmpdir(), 'hw-schema-'));
execFileSync('sh', ['-c', `git archive HEAD prisma/schema | tar -x -C "${old}"`], { cwd: root });
const sql = execFileSync(
  bin('prisma'),
  [
    'migrate',
    'diff',
    '--from-schema-datamodel',
    path.join(old, 'prisma/schema'),
    '--to-schema-datamodel',
    'prisma/schema',
    '--script',
  ],
  {
    cwd: root,
    encoding: 'utf8',
    env: { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres', ...process.env },
  },
);
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = path.join(root, 'prisma/migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'migration.sql'), sql);
console.log(
  `wrote ${path.relative(root, dir)}/migration.sql (review it; add hand-written SQL as plain statements only)`,
);
