// `hookwarden alerts …`: alerts the worker raised (firing and resolved), and the rules it evaluates.
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { shortTime, uuid } from './common';
import { CLI_LISTS, filterOptions, filterQuery } from './filters';

const KINDS = ['denial_rate', 'chain_gap', 'endpoint_silent', 'rollout_paused', 'signing_key_age'] as const;
const PARAMS = ['windowSec', 'maxDenials', 'groupId', 'hours', 'maxAgeDays'] as const;

// Registers the `hookwarden alerts …` commands.
export function registerAlertCommands(program: Command): void {
  const alerts = program.command('alerts').alias('alert').description('Alerts and alert rules (docs/streaming.md)');
  examples(alerts, [
    'hookwarden alerts list --state firing',
    'hookwarden alerts rule-create --name denials --kind denial_rate --param maxDenials=20',
  ]);

  const list = filterOptions(
    alerts.command('list').description('Alerts, newest first'),
    CLI_LISTS['/v1/alerts'].filters,
  );
  examples(list, ['hookwarden alerts list --state firing -o json']);
  list.action(async (opts: Record<string, unknown>, cmd: Command) => {
    const rt = runtimeOf(cmd);
    const query = await filterQuery(rt, CLI_LISTS['/v1/alerts'].filters, opts);
    const res = await (await rt.client()).json('GET', '/v1/alerts', { query });
    rt.list(res, [
      { header: 'ID', get: (a) => a.id, max: 36 },
      { header: 'RULE', get: (a) => a.ruleName },
      { header: 'STATE', get: (a) => a.state },
      { header: 'FIRED', get: (a) => shortTime(a.firedAt) },
      { header: 'RESOLVED', get: (a) => shortTime(a.resolvedAt) },
      { header: 'SUMMARY', get: (a) => a.summary, max: 80 },
    ]);
  });

  examples(
    alerts
      .command('rules')
      .description('The alert rules')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const res = await (await rt.client()).json('GET', '/v1/alerts/rules', {});
        rt.list(res, [
          { header: 'ID', get: (r) => r.id, max: 36 },
          { header: 'NAME', get: (r) => r.name },
          { header: 'KIND', get: (r) => r.kind },
          { header: 'ENABLED', get: (r) => String(r.enabled) },
          { header: 'PARAMS', get: (r) => JSON.stringify(r.params) },
        ]);
      }),
    ['hookwarden alerts rules -o json'],
  );

  examples(
    alerts
      .command('rule-create')
      .description('Create an alert rule')
      .requiredOption('--name <name>', 'the rule name')
      .requiredOption('--kind <kind>', KINDS.join(' | '))
      .option('--param <key=value...>', `parameters: ${PARAMS.join(', ')}`)
      .action(async (opts: { name: string; kind: string; param?: string[] }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (!(KINDS as readonly string[]).includes(opts.kind))
          throw new CliError(`--kind must be one of ${KINDS.join(', ')}`);
        const params: Record<string, string | number> = {};
        for (const p of opts.param ?? []) {
          const [k, v] = [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)];
          if (!p.includes('=') || !(PARAMS as readonly string[]).includes(k))
            throw new CliError(`--param ${p}: expected key=value with key one of ${PARAMS.join(', ')}`);
          params[k] = k === 'groupId' ? v : Number(v);
        }
        rt.record(
          await (
            await rt.client()
          ).json('POST', '/v1/alerts/rules', {
            body: { name: opts.name, kind: opts.kind as (typeof KINDS)[number], params },
          }),
        );
      }),
    ['hookwarden alerts rule-create --name silent --kind endpoint_silent --param hours=12'],
  );

  examples(
    alerts
      .command('rule-delete <id>')
      .description('Delete an alert rule and its alerts')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (await rt.client()).json('DELETE', '/v1/alerts/rules/{id}', { path: { id: uuid(id, 'rule id') } }),
        );
      }),
    ['hookwarden alerts rule-delete 3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b'],
  );
}
