// Prisma CLI configuration: offline JS schema engine with a pg driver adapter (see TOOLCHAIN.md).
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { createCliAdapter } from './prisma/pg-cli-adapter';

// The CLI reads `env("DATABASE_URL")` from the schema too: give it the same local default as the API.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/hookwarden';
const databaseUrl = process.env.DATABASE_URL;

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: async () => Promise.resolve(createCliAdapter(databaseUrl)),
});
