// `hookwarden audit-settings …`: a group's capture settings (get, set).
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { AuditSettings } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { parseIntIn } from '../cli/parse';

// Registers the `hookwarden audit-settings …` commands.
export function registerAuditSettingsCommands(program: Command): void {
  const settings = program
    .command('audit-settings')
    .description("A group's capture policy for hook-run output (none, digests, excerpts)");
  examples(settings, [
    'hookwarden audit-settings get engineering',
    'hookwarden audit-settings set engineering --capture digests',
  ]);

  examples(
    settings
      .command('get <group>')
      .description("Show a group's capture settings")
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.record(await client.json('GET', '/v1/groups/{id}/audit-settings', { path: { id: g.id } }));
      }),
    ['hookwarden audit-settings get engineering -o json'],
  );

  examples(
    settings
      .command('set <group>')
      .description("Change a group's capture settings (unset options keep their current value)")
      .option('--capture <mode>', 'none | digests | excerpts')
      .option('--max-excerpt-bytes <n>', 'largest excerpt kept per stream (0..65536)')
      .option('--redact <regex...>', 'extra redaction patterns (replaces the list)')
      .option('--default-redact', 'apply the built-in secret patterns')
      .option('--no-default-redact', 'do not apply the built-in secret patterns')
      .action(
        async (
          ref: string,
          opts: { capture?: string; maxExcerptBytes?: string; redact?: string[]; defaultRedact?: boolean },
          cmd: Command,
        ) => {
          const rt = runtimeOf(cmd);
          const client = await rt.client();
          const g = await resolveGroup(client, ref);
          const current = await client.json('GET', '/v1/groups/{id}/audit-settings', { path: { id: g.id } });
          if (opts.capture !== undefined && !['none', 'digests', 'excerpts'].includes(opts.capture)) {
            throw new CliError(`--capture must be none, digests or excerpts, got ${JSON.stringify(opts.capture)}`);
          }
          const next: AuditSettings = {
            capture: (opts.capture as AuditSettings['capture'] | undefined) ?? current.capture,
            maxExcerptBytes: opts.maxExcerptBytes
              ? parseIntIn(opts.maxExcerptBytes, '--max-excerpt-bytes', 0, 65_536)
              : current.maxExcerptBytes,
            redactPatterns: opts.redact ?? current.redactPatterns,
            useDefaultRedact: opts.defaultRedact ?? current.useDefaultRedact,
          };
          rt.record(await client.json('PUT', '/v1/groups/{id}/audit-settings', { path: { id: g.id }, body: next }));
        },
      ),
    ['hookwarden audit-settings set engineering --capture excerpts --max-excerpt-bytes 4096 --redact "ACME-[0-9]+"'],
  );
}
