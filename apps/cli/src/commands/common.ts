// Shared pieces of resource commands: paging options and fetching one page or all of them.
import type { Command } from 'commander';
import type { FetchResponse, ItemOf, Page, PageInit, PagedPath } from '@hookwarden/admin-client';
import type { ApiClient } from '../client/api-client';
import { download } from '../client/download';
import type { Runtime } from '../cli/context';
import { CliError } from '../cli/errors';
import { isUuid, parseIntIn } from '../cli/parse';

export interface PageOptions {
  limit?: string;
  cursor?: string;
  all?: boolean;
}

// Adds --limit, --cursor and --all to a list command.
export function pageOptions(cmd: Command, maxLimit = 200): Command {
  return cmd
    .option('--limit <n>', `items per page (1..${maxLimit})`)
    .option('--cursor <cursor>', 'continue after a previous page (its nextCursor)')
    .option('--all', 'follow every page');
}

// One page (or every page with --all) of a cursor-paginated list.
export async function fetchPage<P extends PagedPath>(
  client: ApiClient,
  path: P,
  init: PageInit<P>,
  opts: PageOptions,
  maxLimit = 200,
): Promise<Page<ItemOf<'GET', P>>> {
  if (opts.all) return { items: await client.listAll(path, init), nextCursor: null };
  const limit = opts.limit ? parseIntIn(opts.limit, '--limit', 1, maxLimit) : undefined;
  return client.page(path, init, { limit, cursor: opts.cursor });
}

// Short form of an ISO time for tables (minute precision, UTC).
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z');
}

// Checks a UUID argument (`what` names it in the message).
export function uuid(id: string, what: string): string {
  if (!isUuid(id)) throw new CliError(`${what} must be a UUID, got ${JSON.stringify(id)}`);
  return id;
}

// Streams an export with progress (stderr, only on a terminal) and reports where it went.
export async function runExport(
  rt: Runtime,
  open: (signal: AbortSignal) => Promise<FetchResponse>,
  out: string,
): Promise<void> {
  const res = await download(open, {
    out,
    progress: Boolean(process.stderr.isTTY) && out !== '-',
  });
  if (out === '-') return;
  if (rt.format === 'json') rt.json(res);
  else rt.out(`Wrote ${res.bytes} bytes (${res.lines} lines) to ${res.file}.\n`);
}
