// `hookwarden-agent inventory`: collects this endpoint's hook inventory and prints or reports it.
import type { Command } from 'commander';
import { resolveHomes } from '../inventory/homes';
import { collectEndpointInventory, uploadInventory } from '../inventory/reporter';
import { refreshCaptureSettings } from '../spool/capture-settings';
import { readCredentials } from '../state/credentials';
import { endpointClient } from '../client/identity';
import { AGENT_VERSION } from '../version';
import { withLocationOptions } from './options';

export interface InventoryOptions {
  inventoryUsers: string;
  inventoryHome: string[];
}

// Collects repeatable option values.
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

// Adds the options choosing whose homes are inventoried (shared by `inventory` and `run`).
export function withInventoryOptions(command: Command): Command {
  return command
    .option(
      '--inventory-users <who>',
      'whose ZeroTwo homes to inventory: all (people: uid >= 1000 on Linux, /Users on macOS), current, none, or name,name',
      'all',
    )
    .option('--inventory-home <user=dir>', 'also inventory this home (repeatable)', collect, []);
}

// Adds the inventory command.
export function registerInventoryCommand(program: Command): void {
  withInventoryOptions(
    withLocationOptions(
      program
        .command('inventory')
        .description("collect this endpoint's hook inventory (every user, project and plugin hook) and report it"),
    ),
  )
    .option('--print', 'print the inventory as JSON instead of reporting it')
    .action(async (opts: InventoryOptions & { stateDir: string; root: string; print?: boolean }) => {
      const homes = resolveHomes(opts.inventoryUsers, opts.inventoryHome);
      const creds = opts.print ? null : await readCredentials(opts.stateDir);
      if (!opts.print && !creds)
        throw new Error(`not enrolled: no credentials in ${opts.stateDir} (run hookwarden-agent enroll)`);
      const client = creds
        ? await endpointClient(opts.stateDir, creds, { userAgent: `hookwarden-agent/${AGENT_VERSION}` })
        : null;
      if (client) await refreshCaptureSettings(client, opts.stateDir).catch(() => undefined);
      const doc = await collectEndpointInventory(opts.stateDir, opts.root, homes);
      if (!client) {
        process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
        return;
      }
      const result = await uploadInventory(client, doc);
      process.stdout.write(
        `${JSON.stringify({ reported: true, changed: result.changed, hooks: doc.hooks.length, digest: doc.digest })}\n`,
      );
    });
}
