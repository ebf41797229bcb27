// `hookwarden hook-runs …` (query with every filter, stats, top, export, findings) and `hookwarden audit-log …`
// (query, export, verify with a kept checkpoint, head).
import type { Command } from 'commander';
import { checkpointFile, checkpointSignatureValid, loadCheckpoint, saveCheckpoint } from '../audit/checkpoint';
import { download } from '../client/download';
import { resolveGroup } from '../client/resolve';
import type { AuditCheckpoint, PublicKeyList, VerifyResult } from '../client/types';
import { type Runtime, runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIntIn, parseIsoTime } from '../cli/parse';
import { renderTable } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';

interface HookRunView {
  id: string;
  startedAt: string;
  endpointId: string;
  event: string;
  toolName: string | null;
  hookKey: string;
  managed: boolean;
  status: string;
  decision: string | null;
  durationMs: number | null;
  policyRevision: string | null;
}

interface FilterOptions {
  endpoint?: string;
  group?: string;
  event?: string;
  tool?: string;
  decision?: string;
  status?: string;
  skipReason?: string;
  hookKey?: string;
  hookHash?: string;
  managed?: string;
  policyRevision?: string;
  policyDigest?: string;
  session?: string;
  from?: string;
  to?: string;
}

// Adds every hook-run filter of the API to a command.
function filterOptions(cmd: Command): Command {
  return cmd
    .option('--endpoint <id>', 'endpoint id')
    .option('--group <group>', 'group (id or name)')
    .option('--event <events>', 'event name(s), comma-separated (e.g. PreToolUse,Stop)')
    .option('--tool <name>', 'tool name (e.g. Bash)')
    .option('--decision <decisions>', 'decision(s), comma-separated (e.g. deny,block)')
    .option('--status <statuses>', 'ran, skipped, failed, timed_out (comma-separated)')
    .option('--skip-reason <reason>', 'skip reason')
    .option('--hook-key <key>', 'hook key')
    .option('--hook-hash <hash>', 'hook hash')
    .option('--managed <bool>', 'true: managed hooks only; false: user/project hooks only')
    .option('--policy-revision <rev>', 'policy revision in force on the endpoint')
    .option('--policy-digest <digest>', 'policy digest')
    .option('--session <id>', 'session id')
    .option('--from <iso>', 'runs started at or after (ISO 8601)')
    .option('--to <iso>', 'runs started before (ISO 8601)');
}

// The API query of the filter options.
async function filterQuery(rt: Runtime, o: FilterOptions): Promise<Record<string, string | undefined>> {
  if (o.endpoint && !isUuid(o.endpoint)) throw new CliError('--endpoint must be an endpoint id (UUID)');
  if (o.managed !== undefined && o.managed !== 'true' && o.managed !== 'false')
    throw new CliError('--managed must be true or false');
  const groupId = o.group ? (await resolveGroup(await rt.client(), o.group)).id : undefined;
  return {
    endpointId: o.endpoint,
    groupId,
    event: o.event,
    toolName: o.tool,
    decision: o.decision,
    status: o.status,
    skipReason: o.skipReason,
    hookKey: o.hookKey,
    hookHash: o.hookHash,
    managed: o.managed,
    policyRevision: o.policyRevision,
    policyDigest: o.policyDigest,
    sessionId: o.session,
    from: o.from ? parseIsoTime(o.from, '--from') : undefined,
    to: o.to ? parseIsoTime(o.to, '--to') : undefined,
  };
}

// Streams an export with progress (stderr, only on a terminal) and reports where it went.
async function runExport(
  rt: Runtime,
  apiPath: string,
  query: Record<string, string | undefined>,
  out: string,
): Promise<void> {
  const res = await download(await rt.client(), apiPath, {
    query,
    out,
    progress: Boolean(process.stderr.isTTY) && out !== '-',
  });
  if (out === '-') return;
  if (rt.format === 'json') rt.json(res);
  else rt.out(`Wrote ${res.bytes} bytes (${res.lines} lines) to ${res.file}.\n`);
}

// Registers hook-runs and audit-log.
export function registerAuditCommands(program: Command): void {
  const runs = program.command('hook-runs').description('Hook-run records uploaded by endpoints (auditor and admin)');
  examples(runs, [
    'hookwarden hook-runs list --decision deny,block --from 2026-12-01T00:00:00Z',
    'hookwarden hook-runs export --out runs.ndjson',
  ]);

  examples(
    pageOptions(filterOptions(runs.command('list').description('Query hook runs (newest first)')), 500).action(
      async (opts: FilterOptions & PageOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const page = await fetchPage<HookRunView>(
          await rt.client(),
          '/v1/hook-runs',
          await filterQuery(rt, opts),
          opts,
          500,
        );
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
      },
    ),
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
        const query = o.endpoint ? `?endpointId=${o.endpoint}` : '';
        rt.record(await (await rt.client()).json<Record<string, unknown>>('GET', `/v1/hook-runs/${id}${query}`));
      }),
    ['hookwarden hook-runs get 3fa8… -o json', 'hookwarden hook-runs get 3fa8… --endpoint 9c1d…'],
  );

  examples(
    filterOptions(
      runs.command('stats').description('Counts by event, decision and status per hour or day (default: last 24 h)'),
    )
      .option('--bucket <bucket>', 'hour | day', 'hour')
      .action(async (opts: FilterOptions & { bucket: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.bucket !== 'hour' && opts.bucket !== 'day') throw new CliError('--bucket must be hour or day');
        const res = await (
          await rt.client()
        ).json<{
          bucket: string;
          buckets: Array<{
            start: string;
            total: number;
            byEvent: Record<string, number>;
            byDecision: Record<string, number>;
            byStatus: Record<string, number>;
          }>;
        }>('GET', '/v1/hook-runs/stats', { query: { ...(await filterQuery(rt, opts)), bucket: opts.bucket } });
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
    filterOptions(runs.command('top').description('The hooks failing (failed/timed out) or blocking (deny/block) most'))
      .requiredOption('--kind <kind>', 'failing | blocking')
      .option('--limit <n>', 'how many (1..100)', '10')
      .action(async (opts: FilterOptions & { kind: string; limit: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.kind !== 'failing' && opts.kind !== 'blocking')
          throw new CliError('--kind must be failing or blocking');
        const res = await (
          await rt.client()
        ).json<{
          kind: string;
          items: Array<{ hookKey: string; hookHash: string | null; count: number; endpoints: number; lastAt: string }>;
        }>('GET', '/v1/hook-runs/top', {
          query: {
            ...(await filterQuery(rt, opts)),
            kind: opts.kind,
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
    )
      .option('--format <format>', 'ndjson | csv', 'ndjson')
      .requiredOption('--out <file>', 'destination file (`-` for stdout); written only once complete')
      .action(async (opts: FilterOptions & { format: string; out: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.format !== 'ndjson' && opts.format !== 'csv') throw new CliError('--format must be ndjson or csv');
        await runExport(
          rt,
          '/v1/hook-runs/export',
          { ...(await filterQuery(rt, opts)), format: opts.format },
          opts.out,
        );
      }),
    ['hookwarden hook-runs export --from 2026-11-01T00:00:00Z --format csv --out november.csv'],
  );

  examples(
    pageOptions(
      runs.command('findings').description('Chain findings: missing ranges, broken links, dropped records'),
      500,
    )
      .option('--endpoint <id>', 'endpoint id')
      .option('--group <group>', 'group (id or name)')
      .option(
        '--kind <kind>',
        'missing_range | broken_link | dropped | quarantined | unserved_revision | duplicate_machine_id',
      )
      .option('--include-resolved', 'also resolved findings')
      .action(
        async (
          opts: PageOptions & { endpoint?: string; group?: string; kind?: string; includeResolved?: boolean },
          cmd: Command,
        ) => {
          const rt = runtimeOf(cmd);
          const client = await rt.client();
          const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
          const page = await fetchPage<{
            id: string;
            endpointId: string;
            kind: string;
            fromSeq: number | null;
            toSeq: number | null;
            detectedAt: string;
            resolvedAt: string | null;
          }>(
            client,
            '/v1/findings',
            {
              endpointId: opts.endpoint,
              groupId,
              kind: opts.kind,
              includeResolved: opts.includeResolved ? 'true' : undefined,
            },
            opts,
            500,
          );
          rt.list(page, [
            { header: 'ENDPOINT', get: (f) => f.endpointId, max: 36 },
            { header: 'KIND', get: (f) => f.kind },
            { header: 'SEQ', get: (f) => `${f.fromSeq ?? '-'}..${f.toSeq ?? '-'}` },
            { header: 'DETECTED', get: (f) => shortTime(f.detectedAt) },
            { header: 'RESOLVED', get: (f) => shortTime(f.resolvedAt) },
          ]);
        },
      ),
    ['hookwarden hook-runs findings --kind missing_range'],
  );

  const audit = program.command('audit-log').description('The admin audit log (hash-chained; admins and auditors)');
  examples(audit, ['hookwarden audit-log list --action-prefix policy.', 'hookwarden audit-log verify']);

  const auditFilters = (cmd: Command) =>
    cmd
      .option('--action <action>', 'exact action, e.g. policy.version.create')
      .option('--action-prefix <prefix>', 'action prefix, e.g. group.')
      .option('--actor <actor>', 'actor id or name')
      .option('--target-type <type>', 'target type')
      .option('--target-id <id>', 'target id')
      .option('--from <iso>', 'entries at or after (ISO 8601)')
      .option('--to <iso>', 'entries before (ISO 8601)');
  type AuditFilterOptions = {
    action?: string;
    actionPrefix?: string;
    actor?: string;
    targetType?: string;
    targetId?: string;
    from?: string;
    to?: string;
  };
  const auditQuery = (o: AuditFilterOptions) => ({
    action: o.action,
    actionPrefix: o.actionPrefix,
    actor: o.actor,
    targetType: o.targetType,
    targetId: o.targetId,
    from: o.from ? parseIsoTime(o.from, '--from') : undefined,
    to: o.to ? parseIsoTime(o.to, '--to') : undefined,
  });

  examples(
    pageOptions(auditFilters(audit.command('list').description('Query audit entries (newest first)'))).action(
      async (opts: AuditFilterOptions & PageOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const page = await fetchPage<{
          seq: string;
          at: string;
          actorName: string;
          role: string;
          action: string;
          targetType: string;
          targetId: string | null;
        }>(await rt.client(), '/v1/audit-log', auditQuery(opts), opts);
        rt.list(page, [
          { header: 'SEQ', get: (e) => e.seq },
          { header: 'AT', get: (e) => e.at, max: 24 },
          { header: 'ACTOR', get: (e) => e.actorName, max: 30 },
          { header: 'ROLE', get: (e) => e.role },
          { header: 'ACTION', get: (e) => e.action },
          { header: 'TARGET', get: (e) => `${e.targetType}:${e.targetId ?? '-'}`, max: 50 },
        ]);
      },
    ),
    ['hookwarden audit-log list --actor ci-apply --from 2026-12-01T00:00:00Z'],
  );

  examples(
    auditFilters(audit.command('export').description('Stream every matching entry (oldest first) to a file'))
      .option('--format <format>', 'ndjson | csv', 'ndjson')
      .requiredOption('--out <file>', 'destination file (`-` for stdout)')
      .action(async (opts: AuditFilterOptions & { format: string; out: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.format !== 'ndjson' && opts.format !== 'csv') throw new CliError('--format must be ndjson or csv');
        await runExport(rt, '/v1/audit-log', { ...auditQuery(opts), format: opts.format }, opts.out);
      }),
    ['hookwarden audit-log export --format csv --out audit.csv'],
  );

  examples(
    audit
      .command('head')
      .description('A signed checkpoint of the newest entry')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await (await rt.client()).json<AuditCheckpoint>('GET', '/v1/audit-log/head'));
      }),
    ['hookwarden audit-log head -o json'],
  );

  examples(
    audit
      .command('verify')
      .description(
        'Recompute the hash chain and check it still contains the last checkpoint this machine verified (kept in the ' +
          'config directory); on success the new signed checkpoint replaces it. Exit 1 when the chain is broken',
      )
      .option(
        '--checkpoint-file <file>',
        'where checkpoints are kept (default: audit-checkpoints.json beside config.toml)',
      )
      .option('--no-checkpoint', 'do not use or update the kept checkpoint')
      .action(async (opts: { checkpointFile?: string; checkpoint: boolean }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const file = opts.checkpointFile ?? checkpointFile((await rt.config()).dir);
        const server = client.baseUrl;
        const kept = opts.checkpoint ? await loadCheckpoint(file, server) : null;
        const result = await client.json<VerifyResult>('GET', '/v1/audit-log/verify', {
          query: kept ? { checkpointSeq: kept.seq, checkpointHash: kept.hash } : {},
          timeoutMs: 600_000,
        });
        let signatureOk: boolean | null = null;
        if (result.ok && result.checkpoint) {
          const keys = await client.json<PublicKeyList>('GET', '/v1/signing-keys/trusted');
          signatureOk = checkpointSignatureValid(result.checkpoint, keys.keys);
          if (signatureOk && opts.checkpoint) await saveCheckpoint(file, server, result.checkpoint);
        }
        const summary = {
          ...result,
          keptCheckpoint: kept,
          checkpointFile: opts.checkpoint ? file : null,
          signatureValid: signatureOk,
        };
        if (rt.format === 'json') rt.json(summary);
        else if (result.ok) {
          rt.out(
            `Audit log OK: ${result.checked} entries checked` +
              (kept
                ? `; still contains the checkpoint kept at seq ${kept.seq} (${kept.at})`
                : '; no checkpoint was kept yet') +
              (result.checkpoint
                ? `.\nNew checkpoint: seq ${result.checkpoint.seq}, signed by ${result.checkpoint.keyId}${signatureOk ? '' : ' (SIGNATURE INVALID: not kept)'}`
                : '') +
              '.\n',
          );
        } else {
          rt.out(
            renderTable(
              [
                {
                  problem: result.problem ?? 'broken',
                  firstBrokenSeq: result.firstBrokenSeq ?? '-',
                  reason: result.reason ?? '-',
                },
              ],
              [
                { header: 'PROBLEM', get: (r) => r.problem },
                { header: 'FIRST BROKEN SEQ', get: (r) => r.firstBrokenSeq },
                { header: 'REASON', get: (r) => r.reason, max: 100 },
              ],
            ),
          );
        }
        if (!result.ok) {
          throw new CliError(
            `audit log verification FAILED: ${result.problem ?? 'broken'}${result.firstBrokenSeq ? ` at seq ${result.firstBrokenSeq}` : ''}` +
              (kept ? ` (checked against the checkpoint kept at seq ${kept.seq}; it was not replaced)` : ''),
          );
        }
        if (signatureOk === false)
          throw new CliError('the new checkpoint’s signature does not verify with the server’s trusted keys');
      }),
    [
      'hookwarden audit-log verify',
      'hookwarden audit-log verify -o json --checkpoint-file /secure/hw-checkpoints.json',
    ],
  );
}
