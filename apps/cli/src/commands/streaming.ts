// `hookwarden streaming …`: destinations evidence is streamed to (syslog, webhooks, Splunk HEC, OTLP): list with lag
// and last error, create/update from a JSON file (secrets are write-only), delete, rotate a webhook secret, replay.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { parseIsoTime } from '../cli/parse';
import { shortTime, uuid } from './common';

// Reads a JSON document from a file ('-': stdin), naming the file when it is not JSON.
function jsonFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
}

// Reads a secret from a file (trailing newline removed), never from the command line.
function secretFile(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

// Registers the `hookwarden streaming …` commands.
export function registerStreamingCommands(program: Command): void {
  const streaming = program
    .command('streaming')
    .alias('destinations')
    .description('Streaming destinations: syslog, signed webhooks, Splunk HEC, OTLP (docs/streaming.md)');
  examples(streaming, [
    'hookwarden streaming list',
    'hookwarden streaming create -f siem.json',
    'hookwarden streaming replay <id> --from-time 2026-12-01T00:00:00Z',
  ]);

  examples(
    streaming
      .command('list')
      .description('List destinations with their state, lag, delivered count and last error')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const res = await (await rt.client()).json('GET', '/v1/streaming/destinations', {});
        rt.list(res, [
          { header: 'ID', get: (d) => d.id, max: 36 },
          { header: 'NAME', get: (d) => d.name },
          { header: 'TYPE', get: (d) => d.type },
          { header: 'STATE', get: (d) => (d.enabled ? d.state : `${d.state} (disabled)`) },
          { header: 'LAG', get: (d) => `${d.lagSec.toFixed(1)}s` },
          { header: 'DELIVERED', get: (d) => String(d.deliveredCount) },
          {
            header: 'LAST ERROR',
            get: (d) => (d.lastError ? `${shortTime(d.lastErrorAt)} ${d.lastError}` : ''),
            max: 80,
          },
        ]);
      }),
    ['hookwarden streaming list -o json'],
  );

  examples(
    streaming
      .command('get <id>')
      .description('One destination: settings, which secrets are set, state and per-stream lag')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (
            await rt.client()
          ).json('GET', '/v1/streaming/destinations/{id}', { path: { id: uuid(id, 'destination id') } }),
        );
      }),
    ['hookwarden streaming get 3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b -o json'],
  );

  examples(
    streaming
      .command('create')
      .description('Create a destination from a JSON body (POST /v1/streaming/destinations; see docs/streaming.md)')
      .requiredOption('-f, --file <file>', 'the JSON body (- for stdin); secrets in it are sent once, never shown')
      .action(async (opts: { file: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const body = jsonFile(opts.file);
        rt.record(
          await (await rt.client()).json('POST', '/v1/streaming/destinations', { body: body as never }),
          (d: { id: string; name: string; type: string; state: string; secrets: string[] }) => ({
            id: d.id,
            name: d.name,
            type: d.type,
            state: d.state,
            secrets: d.secrets.join(', '),
          }),
        );
      }),
    ['hookwarden streaming create -f siem.json'],
  );

  examples(
    streaming
      .command('update <id>')
      .description('Change a destination from a JSON body of the fields to change')
      .requiredOption('-f, --file <file>', 'the JSON body (- for stdin)')
      .action(async (id: string, opts: { file: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (
            await rt.client()
          ).json('PATCH', '/v1/streaming/destinations/{id}', {
            path: { id: uuid(id, 'destination id') },
            body: jsonFile(opts.file),
          }),
        );
      }),
    ['hookwarden streaming update 3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b -f changes.json'],
  );

  examples(
    streaming
      .command('delete <id>')
      .description('Delete a destination and its cursors')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (
            await rt.client()
          ).json('DELETE', '/v1/streaming/destinations/{id}', { path: { id: uuid(id, 'destination id') } }),
        );
      }),
    ['hookwarden streaming delete 3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b'],
  );

  examples(
    streaming
      .command('rotate-secret <id>')
      .description('Rotate a webhook signing secret; the previous one keeps signing during the overlap')
      .requiredOption('--secret-file <file>', 'the new secret (- for stdin; at least 32 characters)')
      .option('--overlap <seconds>', 'how long the previous secret still signs', '86400')
      .action(async (id: string, opts: { secretFile: string; overlap: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const overlapSec = Number(opts.overlap);
        if (!Number.isInteger(overlapSec) || overlapSec < 0) throw new CliError('--overlap must be whole seconds ≥ 0');
        rt.record(
          await (
            await rt.client()
          ).json('POST', '/v1/streaming/destinations/{id}/rotate-secret', {
            path: { id: uuid(id, 'destination id') },
            body: { secret: secretFile(opts.secretFile), overlapSec },
          }),
          (d: { name: string; secretRotatedAt: string | null; previousSecretUntil: string | null }) => ({
            name: d.name,
            rotatedAt: d.secretRotatedAt,
            previousSignsUntil: d.previousSecretUntil,
          }),
        );
      }),
    ['openssl rand -hex 32 > new.secret && hookwarden streaming rotate-secret <id> --secret-file new.secret'],
  );

  examples(
    streaming
      .command('replay <id>')
      .description('Deliver again from a time or an event id (and clear a dead letter); neither: resume')
      .option('--from-time <iso>', 'every event committed from then on')
      .option('--from-event <id>', 'from this event id on (hookrun:…, audit:<seq>, finding:<id>, alert:<seq>)')
      .action(async (id: string, opts: { fromTime?: string; fromEvent?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.fromTime && opts.fromEvent) throw new CliError('give --from-time or --from-event, not both');
        rt.record(
          await (
            await rt.client()
          ).json('POST', '/v1/streaming/destinations/{id}/replay', {
            path: { id: uuid(id, 'destination id') },
            body: {
              ...(opts.fromTime ? { fromTime: parseIsoTime(opts.fromTime, '--from-time') } : {}),
              ...(opts.fromEvent ? { fromEventId: opts.fromEvent } : {}),
            },
          }),
          (d: { name: string; state: string }) => ({ name: d.name, state: d.state }),
        );
      }),
    ['hookwarden streaming replay <id> --from-time 2026-12-01T00:00:00Z'],
  );
}
