// `hookwarden audit-log …`: the admin audit log (query with every filter, export, head, verify with a kept checkpoint).
import type { Command } from 'commander';
import { checkpointFile, checkpointSignatureValid, loadCheckpoint, saveCheckpoint } from '../audit/checkpoint';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { renderTable } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, runExport } from './common';
import { auditFilters, choice, filterOptions, filterQuery } from './filters';

// Registers the `hookwarden audit-log …` commands.
export function registerAuditLogCommands(program: Command): void {
  const audit = program.command('audit-log').description('The admin audit log (hash-chained; admins and auditors)');
  examples(audit, ['hookwarden audit-log list --action-prefix policy.', 'hookwarden audit-log verify']);

  examples(
    pageOptions(
      filterOptions(audit.command('list').description('Query audit entries (newest first)'), auditFilters),
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, auditFilters, opts);
      const page = await fetchPage(await rt.client(), '/v1/audit-log', { query }, opts);
      rt.list(page, [
        { header: 'SEQ', get: (e) => e.seq },
        { header: 'AT', get: (e) => e.at, max: 24 },
        { header: 'ACTOR', get: (e) => e.actorName, max: 30 },
        { header: 'ROLE', get: (e) => e.role },
        { header: 'ACTION', get: (e) => e.action },
        { header: 'TARGET', get: (e) => `${e.targetType}:${e.targetId ?? '-'}`, max: 50 },
      ]);
    }),
    ['hookwarden audit-log list --actor ci-apply --from 2026-12-01T00:00:00Z'],
  );

  examples(
    filterOptions(
      audit.command('export').description('Stream every matching entry (oldest first) to a file'),
      auditFilters,
    )
      .option('--format <format>', 'ndjson | csv', 'ndjson')
      .requiredOption('--out <file>', 'destination file (`-` for stdout)')
      .action(async (opts: { format: string; out: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const format = choice(opts.format, ['ndjson', 'csv'], '--format must be ndjson or csv');
        const query = { ...(await filterQuery(rt, auditFilters, opts)), format };
        const client = await rt.client();
        await runExport(
          rt,
          (signal) => client.send('GET', '/v1/audit-log', { query, headers: { accept: '*/*' }, signal }),
          opts.out,
        );
      }),
    ['hookwarden audit-log export --format csv --out audit.csv'],
  );

  examples(
    audit
      .command('head')
      .description('A signed checkpoint of the newest entry')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await (await rt.client()).json('GET', '/v1/audit-log/head'));
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
        const result = await client.json('GET', '/v1/audit-log/verify', {
          query: kept ? { checkpointSeq: kept.seq, checkpointHash: kept.hash } : {},
          timeoutMs: 600_000,
        });
        let signatureOk: boolean | null = null;
        if (result.ok && result.checkpoint) {
          const keys = await client.json('GET', '/v1/signing-keys/trusted');
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
