// `hookwarden hook-runs …`: hook-run records (query with every filter, get, stats, top, export, chain findings).
import type { Command } from 'commander';
import { QUERY_ENUMS } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIntIn } from '../cli/parse';
import { fetchPage, type PageOptions, pageOptions, runExport, shortTime } from './common';
import { choice, CLI_LISTS, filterOptions, filterQuery, hookRunFilters } from './filters';

/** The two rankings of `hook-runs top` (from the document). */
const TOP_KINDS = QUERY_ENUMS['/v1/hook-runs/top'].kind;

// Registers the `hookwarden hook-runs …` commands.
export function registerHookRunCommands(program: Command): void {
  const runs = program.command('hook-runs').description('Hook-run records uploaded by endpoints (auditor and admin)');
  examples(runs, [
    'hookwarden hook-runs list --decision deny,block --from 2026-12-01T00:00:00Z',
    'hookwarden hook-runs export --out runs.ndjson',
  ]);

  examples(
    pageOptions(
      filterOptions(runs.command('list').description('Query hook runs (newest first)'), hookRunFilters),
      500,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, hookRunFilters, opts);
      const page = await fetchPage(await rt.client(), '/v1/hook-runs', { query }, opts, 500);
      rt.list(page, [
        { header: 'STARTED', get: (r) => r.startedAt, max: 24 },
        { header: 'ENDPOINT', get: (r) => r.endpointId.slice(0, 8) },
        { header: 'EVENT', get: (r) => r.event },
        { header: 'TOOL', get: (r) => r.toolName },
        { header: 'HOOK', get: (r) => r.hookKey, max: 40 },
        { header: 'MANAGED', get: (r) => r.managed },
        { header: 'STATUS', get: (r) => r.status },
        { header: 'DECISION', get: (r) => r.decision },
        { header: 'MS', get: (r) => r.durationMs },
      ]);
    }),
    [
      'hookwarden hook-runs list --group engineering --status failed,timed_out',
      'hookwarden hook-runs list --event PreToolUse --tool Bash --all -o json',
    ],
  );

  examples(
    runs
      .command('get <id>')
      .description('One hook run with the full uploaded record')
      .option('--endpoint <uuid>', 'the endpoint that uploaded it (records are keyed by endpoint and id)')
      .action(async (id: string, o: { endpoint?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (!isUuid(id)) throw new CliError('hook-run id must be a UUID');
        if (o.endpoint !== undefined && !isUuid(o.endpoint)) throw new CliError('--endpoint must be a UUID');
        const query = o.endpoint ? { endpointId: o.endpoint } : {};
        rt.record(await (await rt.client()).json('GET', '/v1/hook-runs/{id}', { path: { id }, query }));
      }),
    ['hookwarden hook-runs get 3fa8… -o json', 'hookwarden hook-runs get 3fa8… --endpoint 9c1d…'],
  );

  examples(
    filterOptions(
      runs.command('stats').description('Counts by event, decision and status per hour or day (default: last 24 h)'),
      hookRunFilters,
    )
      .option('--bucket <bucket>', 'hour | day', 'hour')
      .action(async (opts: { bucket: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const bucket = choice(opts.bucket, ['hour', 'day'], '--bucket must be hour or day');
        const query = { ...(await filterQuery(rt, hookRunFilters, opts)), bucket };
        const res = await (await rt.client()).json('GET', '/v1/hook-runs/stats', { query });
        if (rt.format === 'json') return rt.json(res);
        const kv = (o: Record<string, number>) =>
          Object.entries(o)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ') || '-';
        rt.list({ items: res.buckets }, [
          { header: 'START', get: (b) => shortTime(b.start) },
          { header: 'TOTAL', get: (b) => b.total },
          { header: 'STATUS', get: (b) => kv(b.byStatus), max: 50 },
          { header: 'DECISION', get: (b) => kv(b.byDecision), max: 40 },
          { header: 'EVENT', get: (b) => kv(b.byEvent), max: 60 },
        ]);
      }),
    ['hookwarden hook-runs stats --bucket day --from 2026-11-01T00:00:00Z'],
  );

  examples(
    filterOptions(
      runs.command('top').description('The hooks failing (failed/timed out) or blocking (deny/block) most'),
      CLI_LISTS['/v1/hook-runs/top'].filters,
    )
      .requiredOption('--kind <kind>', TOP_KINDS.join(' | '))
      .option('--limit <n>', 'how many (1..100)', '10')
      .action(async (opts: { kind: string; limit: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const kind = choice(opts.kind, TOP_KINDS, `--kind must be ${TOP_KINDS.join(' or ')}`);
        const res = await (
          await rt.client()
        ).json('GET', '/v1/hook-runs/top', {
          query: {
            ...(await filterQuery(rt, hookRunFilters, opts)),
            kind,
            limit: parseIntIn(opts.limit, '--limit', 1, 100),
          },
        });
        if (rt.format === 'json') return rt.json(res);
        rt.list(res, [
          { header: 'HOOK', get: (i) => i.hookKey, max: 60 },
          { header: 'COUNT', get: (i) => i.count },
          { header: 'ENDPOINTS', get: (i) => i.endpoints },
          { header: 'LAST', get: (i) => shortTime(i.lastAt) },
        ]);
      }),
    ['hookwarden hook-runs top --kind failing --group engineering'],
  );

  examples(
    filterOptions(
      runs
        .command('export')
        .description('Stream every matching run (oldest first) to a file, with progress on a terminal'),
      hookRunFilters,
    )
      .option('--format <format>', 'ndjson | csv', 'ndjson')
      .requiredOption('--out <file>', 'destination file (`-` for stdout); written only once complete')
      .action(async (opts: { format: string; out: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const format = choice(opts.format, ['ndjson', 'csv'], '--format must be ndjson or csv');
        const query = { ...(await filterQuery(rt, hookRunFilters, opts)), format };
        const client = await rt.client();
        await runExport(
          rt,
          (signal) => client.send('GET', '/v1/hook-runs/export', { query, headers: { accept: '*/*' }, signal }),
          opts.out,
        );
      }),
    ['hookwarden hook-runs export --from 2026-11-01T00:00:00Z --format csv --out november.csv'],
  );

  examples(
    filterOptions(
      pageOptions(
        runs.command('findings').description('Chain findings: missing ranges, broken links, dropped records'),
        500,
      ),
      CLI_LISTS['/v1/findings'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/findings'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/findings', { query }, opts, 500);
      rt.list(page, [
        { header: 'ENDPOINT', get: (f) => f.endpointId, max: 36 },
        { header: 'KIND', get: (f) => f.kind },
        { header: 'SEQ', get: (f) => `${f.fromSeq ?? '-'}..${f.toSeq ?? '-'}` },
        { header: 'DETECTED', get: (f) => shortTime(f.detectedAt) },
        { header: 'RESOLVED', get: (f) => shortTime(f.resolvedAt) },
      ]);
    }),
    ['hookwarden hook-runs findings --kind missing_range'],
  );
}
