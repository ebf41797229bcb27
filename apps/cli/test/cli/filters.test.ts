// Every filter the API has, offered by the CLI: the list routes and their filters are derived from the OpenAPI
// document (query parameters minus paging and format); the CLI's table of list commands must name every list route
// and every filter (the compiler checks the same through `satisfies`), each command's --help must show the flags,
// and the built CLI given every flag must send every filter to the API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes } from '@hookwarden/admin-client';
import { buildProgram } from '../../src/cli/program';
import { CLI_LISTS, type FilterSpec, filterFlags } from '../../src/commands/filters';

type Json = Record<string, any>;
const doc = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../../libs/admin-client/openapi.json'), 'utf8'),
) as Json;

/** Every GET route answering a list (`items`), with its filters and their parameter schemas. */
const LISTS = listRoutes(doc).map((l) => ({
  path: l.path,
  filters: new Map(l.filters.map((f) => [f.name, f.schema as Json])),
}));

type Listing = { command: string; filters: Record<string, FilterSpec>; own?: readonly string[] };
const listings = CLI_LISTS as Record<string, Listing | { notListed: string }>;

// The command of a listing, found in the real program tree.
function commandOf(name: string): Command {
  let cmd: Command | undefined = buildProgram();
  for (const part of name.split(' ')) cmd = cmd?.commands.find((c) => c.name() === part);
  if (!cmd) throw new Error(`no command ${name}`);
  return cmd;
}

describe('CLI list filters derived from the OpenAPI document', () => {
  it('the document has the list routes this test expects to derive', () => {
    expect(LISTS.map((l) => l.path)).toEqual(expect.arrayContaining(['/v1/hook-runs', '/v1/inventory/hooks']));
    expect(LISTS.find((l) => l.path === '/v1/hook-runs')!.filters.has('toolCommand')).toBe(true);
  });

  it('names every list route of the document, and only those', () => {
    expect(Object.keys(listings).sort()).toEqual(LISTS.map((l) => l.path).sort());
    for (const [p, l] of Object.entries(listings)) if ('notListed' in l) expect(l.notListed, p).not.toBe('');
  });

  for (const { path: route, filters } of LISTS) {
    it(`${route}: the CLI offers every filter (${[...filters.keys()].join(', ') || 'none'})`, () => {
      const l = listings[route]!;
      if ('notListed' in l) return;
      expect([...Object.keys(l.filters), ...(l.own ?? [])].sort(), route).toEqual([...filters.keys()].sort());
      const cmd = commandOf(l.command);
      const longs = cmd.options.map((o) => o.long);
      for (const flag of [...filterFlags(l.filters), ...(l.own ?? []).map((n) => `--${n}`)])
        expect(longs, `${l.command} ${flag}`).toContain(flag);
    });
  }
});

// A value the API accepts for a filter, from its parameter schema.
function sampleOf(name: string, schema: Json): string {
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  // A group filter takes group ids (one, or comma-separated where the route takes several).
  if (schema.format === 'uuid' || name === 'groupId') return '3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b';
  if (schema.format === 'date-time') return '2026-12-01T00:00:00.000Z';
  if (name === 'hash') return `sha256:${'a'.repeat(64)}`;
  return `v-${name}`;
}

describe('the built CLI sends every filter it offers', () => {
  const seen: URL[] = [];
  let base = '';
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push(url);
      res.writeHead(200, { 'content-type': 'application/json' });
      const id = /^\/v1\/groups\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1];
      if (id)
        res.end(JSON.stringify({ id, name: 'g', description: '', isDefault: false, createdAt: '', updatedAt: '' }));
      else res.end(JSON.stringify({ kind: 'failing', items: [], nextCursor: null }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  // Runs the built CLI; resolves with its exit code and stderr.
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const bin = path.resolve(__dirname, '../../bin/hookwarden.js');
      const child = spawn(process.execPath, [bin, '--config', '/nonexistent/hw.toml', ...args], {
        env: { ...process.env, HOOKWARDEN_URL: base, HOOKWARDEN_TOKEN: 'hwt_test' },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });

  for (const { path: route, filters } of LISTS) {
    const l = listings[route]!;
    if ('notListed' in l || filters.size === 0) continue;
    it(`${l.command} with every filter sends all of them to ${route}`, async () => {
      const args = l.command.split(' ');
      for (const [name, spec] of Object.entries(l.filters)) {
        args.push(spec.flag.split(' ')[0]!);
        if (!('switch' in spec)) args.push(sampleOf(name, filters.get(name)!));
      }
      if (l.own?.includes('kind')) args.push('--kind', 'failing');
      seen.length = 0;
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
      const req = seen.find((u) => u.pathname === route);
      expect(req, `${route} was not requested`).toBeDefined();
      for (const name of filters.keys()) expect(req!.searchParams.has(name), `${route} ${name}`).toBe(true);
      for (const [name, spec] of Object.entries(l.filters))
        if (!('switch' in spec) && !spec.group && !spec.groups && !spec.check)
          expect(req!.searchParams.get(name), name).toBe(sampleOf(name, filters.get(name)!));
    });
  }
});
