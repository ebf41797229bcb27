// `hookwarden versions …`: immutable policy versions (list, show, toml, diff, create validated offline first).
import path from 'node:path';
import type { Command } from 'commander';
import { resolvePolicy } from '../client/resolve';
import type { VersionSummary, VersionView } from '../client/types';
import { readBounded } from '../config/files';
import { runtimeOf } from '../cli/context';
import { CliError, formatProblem } from '../cli/errors';
import { examples } from '../cli/help';
import { parseIntIn } from '../cli/parse';
import { MAX_TOML_BYTES, prepareLocalVersion } from '../gitops/content';
import { readManagedFiles } from '../gitops/managed-files';
import type { Column } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';

const VERSION_COLUMNS: Array<Column<VersionSummary>> = [
  { header: 'VERSION', get: (v) => v.number },
  { header: 'DIGEST', get: (v) => v.digest.slice(0, 19) },
  { header: 'FILES', get: (v) => v.fileCount },
  { header: 'WARNINGS', get: (v) => v.warnings.length },
  { header: 'AUTHOR', get: (v) => v.authorName, max: 30 },
  { header: 'CREATED', get: (v) => shortTime(v.createdAt) },
  { header: 'MESSAGE', get: (v) => v.message.split('\n')[0], max: 50 },
];

// The `key: value` view of a version.
function versionRecord(v: VersionView): Record<string, unknown> {
  return {
    policyId: v.policyId,
    version: v.number,
    id: v.id,
    digest: v.digest,
    author: v.authorName,
    created: v.createdAt,
    message: v.message,
    files: v.files.map((f) => `${f.path} (0${f.mode.toString(8)}, ${f.size} B)`).join(', ') || '-',
    warnings: v.warnings.map((w) => formatProblem(w)).join('; ') || '-',
  };
}

// Registers the `hookwarden versions …` commands.
export function registerVersionCommands(program: Command): void {
  const versions = program.command('versions').alias('version').description('Immutable policy versions');
  examples(versions, [
    'hookwarden versions list baseline',
    'hookwarden versions create baseline -f requirements.toml --files ./files -m "Block rm -rf"',
  ]);

  examples(
    pageOptions(versions.command('list <policy>').description('List versions of a policy (newest first)')).action(
      async (ref: string, opts: PageOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        rt.list(await fetchPage(client, '/v1/policies/{id}/versions', { path: { id: p.id } }, opts), VERSION_COLUMNS);
      },
    ),
    ['hookwarden versions list baseline --all'],
  );

  examples(
    versions
      .command('show <policy> <n>')
      .description('Show one version (the canonical TOML with --toml; file contents with --with-content)')
      .option('--with-content', 'include file contents (base64) in JSON output')
      .option('--toml', 'also print the canonical requirements.toml')
      .action(async (ref: string, n: string, opts: { withContent?: boolean; toml?: boolean }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        const num = parseIntIn(n, 'version', 1, 2_000_000_000);
        const v = await client.json('GET', '/v1/policies/{id}/versions/{n}', {
          path: { id: p.id, n: num },
          query: { withContent: opts.withContent ? 'true' : undefined },
          maxBytes: 320 * 1024 * 1024,
        });
        if (rt.format === 'json') return rt.json(v);
        rt.record(versionRecord(v));
        if (opts.toml) rt.out(`\n${v.toml}`);
      }),
    ['hookwarden versions show baseline 3', 'hookwarden versions show baseline 3 --with-content -o json'],
  );

  examples(
    versions
      .command('toml <policy> <n>')
      .alias('requirements')
      .description('Print the served requirements.toml of a version, byte for byte what endpoints receive')
      .action(async (ref: string, n: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        const num = parseIntIn(n, 'version', 1, 2_000_000_000);
        const text = await client.text('/v1/policies/{id}/versions/{n}/requirements.toml', {
          path: { id: p.id, n: num },
        });
        if (rt.format === 'json') rt.json({ policyId: p.id, version: num, toml: text });
        else rt.out(text);
      }),
    ['hookwarden versions toml baseline 3 > requirements.toml'],
  );

  examples(
    versions
      .command('diff <policy> <a> <b>')
      .description('Unified diff of the TOML and every changed file from version a to version b')
      .option('--context <n>', 'context lines (0..100)', '3')
      .action(async (ref: string, a: string, b: string, opts: { context: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        const na = parseIntIn(a, 'a', 1, 2_000_000_000);
        const nb = parseIntIn(b, 'b', 1, 2_000_000_000);
        const context = parseIntIn(opts.context, '--context', 0, 100);
        if (rt.format === 'json') {
          rt.json(
            await client.json('GET', '/v1/policies/{id}/versions/{a}/diff/{b}', {
              path: { id: p.id, a: na, b: nb },
              query: { context },
            }),
          );
        } else {
          const text = await client.text('/v1/policies/{id}/versions/{a}/diff/{b}', {
            path: { id: p.id, a: na, b: nb },
            query: { format: 'text', context },
          });
          rt.out(text || `versions ${na} and ${nb} have the same content\n`);
        }
      }),
    ['hookwarden versions diff baseline 2 3', 'hookwarden versions diff baseline 2 3 -o json'],
  );

  examples(
    versions
      .command('create <policy>')
      .description(
        'Create a version from a requirements.toml and a managed-files directory (validated offline with hook-core ' +
          'first; the mode of each file comes from its executable bit)',
      )
      .requiredOption('-f, --file <requirements.toml>', 'the requirements.toml')
      .option('--files <dir>', 'managed files (paths relative to managed_dir)')
      .option('-m, --message <text>', 'what changed and why', '')
      .option('--base <n>', 'the version this edit is based on (default: the latest, checked by digest)')
      .action(
        async (ref: string, opts: { file: string; files?: string; message: string; base?: string }, cmd: Command) => {
          const rt = runtimeOf(cmd);
          const raw = await readBounded(opts.file, MAX_TOML_BYTES);
          if (raw === null) throw new CliError(`${opts.file}: no such file`);
          const files = opts.files
            ? await readManagedFiles(path.resolve(opts.files), {}, (r) => path.join(opts.files!, r))
            : { files: [], problems: [] };
          if (files.problems.length) throw new CliError('the managed files cannot be used', files.problems);
          const prepared = prepareLocalVersion(raw.toString('utf8'), files.files, opts.file, (r) =>
            path.join(opts.files ?? '', r),
          );
          if (!prepared.ok) throw new CliError(`${opts.file}: offline validation failed`, prepared.problems);
          for (const w of prepared.version.warnings) rt.warn(formatProblem(w));
          const client = await rt.client();
          const p = await resolvePolicy(client, ref);
          let baseVersion = p.latestVersion;
          const headers: Record<string, string> = {};
          if (opts.base !== undefined) baseVersion = parseIntIn(opts.base, '--base', 0, 2_000_000_000);
          else if (p.latestVersion > 0) {
            // Bind the edit to the exact content we saw: a version created meanwhile makes the server answer 409.
            const latest = await client.json('GET', '/v1/policies/{id}/versions/{n}', {
              path: { id: p.id, n: p.latestVersion },
            });
            headers['if-match'] = `"${latest.digest}"`;
          }
          const res = await client.jsonWithStatus('POST', '/v1/policies/{id}/versions', {
            path: { id: p.id },
            headers,
            body: {
              toml: prepared.version.sourceText,
              files: prepared.version.files.map((f) => ({
                path: f.path,
                content: f.content.toString('base64'),
                encoding: 'base64' as const,
                mode: f.mode,
              })),
              message: opts.message,
              baseVersion,
            },
            timeoutMs: 300_000,
          });
          if (rt.format === 'json') return rt.json(res.body);
          rt.out(
            res.status === 201
              ? `Created version ${res.body.number} of policy "${p.name}" (${res.body.digest}).\n`
              : `Unchanged: the content equals version ${res.body.number} (${res.body.digest}); nothing was created.\n`,
          );
        },
      ),
    [
      'hookwarden versions create baseline -f policies/baseline/requirements.toml --files policies/baseline/files -m "Block rm -rf"',
    ],
  );
}
