// Streaming destinations: create, change, delete, rotate a webhook secret, replay; the status view with each stream's
// lag. Secrets are sealed under the KEK bound to the destination id and never returned (only which ones are set).
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { StreamDestination } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { KeyVault } from '../signing/key-vault.service';
import { parseEventId } from './stream-events';
import {
  type CreateDestination,
  type DestinationView,
  type Replay,
  type Secrets,
  type StreamName,
  STREAM_NAMES,
  type Streams,
  type StreamStatus,
  type Target,
  type UpdateDestination,
} from './streaming.dto';
import { type DestinationData, type Position, StreamingRepository } from './streaming.repository';

/** What a destination's secrets are sealed for (the additional authenticated data). */
const sealOwner = (id: string): string => `stream-destination:${id}`;

// The streams a destination receives, in table order.
export function chosenStreams(streams: Streams | Record<string, unknown>): StreamName[] {
  return STREAM_NAMES.filter((s) => (streams as Record<string, unknown>)[s] !== undefined);
}

// Refuses secrets a target type does not use and targets that miss the ones they need (a located 400).
function checkSecrets(target: Target, secrets: Secrets): void {
  const bad = (path: string, message: string): never => {
    throw new ApiError('validation_failed', `Invalid request: $.${path} (body): ${message}`, [
      { path: `$.${path}`, in: 'body', message },
    ]);
  };
  if (secrets.webhookSecret && target.type !== 'webhook') bad('secrets.webhookSecret', 'only for a webhook target');
  if (secrets.hecToken && target.type !== 'splunk_hec') bad('secrets.hecToken', 'only for a splunk_hec target');
  if (secrets.clientKeyPem && target.type !== 'syslog_tls') bad('secrets.clientKeyPem', 'only for a syslog_tls target');
  if (secrets.headers && !['webhook', 'splunk_hec', 'otlp_http'].includes(target.type))
    bad('secrets.headers', 'only for HTTP targets');
  if (target.type === 'webhook' && !secrets.webhookSecret)
    bad('secrets.webhookSecret', 'a webhook needs a signing secret');
  if (target.type === 'splunk_hec' && !secrets.hecToken) bad('secrets.hecToken', 'Splunk HEC needs a token');
  if (target.type === 'syslog_tls' && Boolean(target.clientCertPem) !== Boolean(secrets.clientKeyPem))
    bad('secrets.clientKeyPem', 'a client certificate and its key go together');
}

@Injectable()
export class StreamingService {
  constructor(
    private readonly repository: StreamingRepository,
    private readonly vault: KeyVault,
  ) {}

  // Every destination with its status.
  async list(): Promise<{ items: DestinationView[] }> {
    const rows = await this.repository.list();
    return { items: await Promise.all(rows.map((r) => this.view(r))) };
  }

  // One destination with its status; 404 when unknown.
  async get(id: string): Promise<DestinationView> {
    return this.view(await this.row(id));
  }

  // Creates a destination (its cursors start at the current end of its streams: new events only; replay for history).
  async create(body: CreateDestination, ctx: AuditContext): Promise<DestinationView> {
    const secrets = body.secrets ?? {};
    checkSecrets(body.target, secrets);
    if (await this.repository.nameTaken(body.name))
      throw new ApiError('conflict', `A destination named "${body.name}" exists`);
    const id = randomUUID();
    const data: DestinationData = {
      name: body.name,
      type: body.target.type,
      config: body.target,
      secretsSealed: this.seal(id, secrets),
      secretRotatedAt: secrets.webhookSecret ? new Date() : null,
      streams: body.streams,
      format: body.format,
      enabled: body.enabled,
      requireAuditDelivery: body.requireAuditDelivery,
      deadLetterAfterSec: body.deadLetterAfterSec,
      batchMaxBytes: body.batchMaxBytes,
      batchMaxEvents: body.batchMaxEvents,
    };
    const row = await this.repository.create(id, data, chosenStreams(body.streams), ctx, {
      targetId: id,
      details: {
        name: body.name,
        type: body.target.type,
        streams: chosenStreams(body.streams),
        secrets: Object.keys(secrets),
      },
    });
    return this.view(row);
  }

  // Changes a destination; secrets named are replaced, others kept. A changed target or stream choice does not move
  // existing cursors (newly chosen streams start at their current end).
  async update(id: string, body: UpdateDestination, ctx: AuditContext): Promise<DestinationView> {
    const row = await this.row(id);
    const target = (body.target ?? row.config) as Target;
    const current = this.secretsOf(row);
    const given: Secrets = body.secrets ?? {};
    const secrets: Secrets = { ...current, ...given };
    if (body.target && body.target.type !== row.type) {
      // Another type: secrets of the old type do not carry over unless given again.
      for (const k of Object.keys(current) as Array<keyof Secrets>) if (!given[k]) delete secrets[k];
    }
    checkSecrets(target, secrets);
    if (body.name && (await this.repository.nameTaken(body.name, id)))
      throw new ApiError('conflict', `A destination named "${body.name}" exists`);
    const before = chosenStreams(row.streams as Streams);
    const after = body.streams ? chosenStreams(body.streams) : before;
    const data: Partial<DestinationData> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.target ? { type: body.target.type, config: body.target } : {}),
      ...(body.secrets || body.target ? { secretsSealed: this.seal(id, secrets) } : {}),
      ...(body.secrets?.webhookSecret ? { secretRotatedAt: new Date(), previousSecretUntil: null } : {}),
      ...(body.streams ? { streams: body.streams } : {}),
      ...(body.format !== undefined ? { format: body.format } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.requireAuditDelivery !== undefined ? { requireAuditDelivery: body.requireAuditDelivery } : {}),
      ...(body.deadLetterAfterSec !== undefined ? { deadLetterAfterSec: body.deadLetterAfterSec } : {}),
      ...(body.batchMaxBytes !== undefined ? { batchMaxBytes: body.batchMaxBytes } : {}),
      ...(body.batchMaxEvents !== undefined ? { batchMaxEvents: body.batchMaxEvents } : {}),
    };
    const { secrets: _hidden, ...shown } = body;
    const updated = await this.repository.update(
      id,
      data,
      after.filter((s) => !before.includes(s)),
      ctx,
      {
        action: 'stream_destination.update',
        targetType: 'stream_destination',
        targetId: id,
        details: { changed: shown, secrets: Object.keys(body.secrets ?? {}) },
      },
    );
    return this.view(updated);
  }

  // Deletes a destination and its cursors.
  async delete(id: string, ctx: AuditContext): Promise<DestinationView> {
    const row = await this.row(id);
    const view = await this.view(row);
    await this.repository.delete(id, ctx, { name: row.name, type: row.type });
    return view;
  }

  // Rotates a webhook's signing secret: the new one signs from now on; the previous one also signs (a second
  // signature) until the overlap ends, so receivers can switch without refusing a request.
  async rotateSecret(id: string, secret: string, overlapSec: number, ctx: AuditContext): Promise<DestinationView> {
    const row = await this.row(id);
    if (row.type !== 'webhook')
      throw new ApiError('conflict', `Destination ${row.name} is ${row.type}: only a webhook signs`);
    const current = this.secretsOf(row);
    const next: Secrets = { ...current, webhookSecret: secret };
    if (overlapSec > 0 && current.webhookSecret) next.previousWebhookSecret = current.webhookSecret;
    else delete next.previousWebhookSecret;
    const until = overlapSec > 0 ? new Date(Date.now() + overlapSec * 1000) : null;
    const updated = await this.repository.update(
      id,
      { secretsSealed: this.seal(id, next), secretRotatedAt: new Date(), previousSecretUntil: until },
      [],
      ctx,
      {
        action: 'stream_destination.rotate_secret',
        targetType: 'stream_destination',
        targetId: id,
        details: { overlapSec, previousUntil: until?.toISOString() ?? null },
      },
    );
    return this.view(updated);
  }

  // Replays from a time (every stream) or an event id (its stream), or just clears a dead letter (no position).
  async replay(id: string, body: Replay, ctx: AuditContext): Promise<DestinationView> {
    const row = await this.row(id);
    const streams = chosenStreams(row.streams as Streams);
    const moves: Array<{ stream: StreamName; position: Position }> = [];
    if (body.fromTime) {
      for (const s of streams)
        moves.push({ stream: s, position: await this.repository.positionBeforeTime(s, new Date(body.fromTime)) });
    } else if (body.fromEventId) {
      const ref = parseEventId(body.fromEventId);
      const bad = (message: string): never => {
        throw new ApiError('validation_failed', `Invalid request: $.fromEventId (body): ${message}`, [
          { path: '$.fromEventId', in: 'body', message },
        ]);
      };
      if (!ref) return bad('not an event id (hookrun:<endpoint>:<record>, audit:<seq>, finding:<id>, alert:<seq>)');
      // An audit id replays the audit log and the release events (both carry audit ids).
      const targets =
        ref.stream === 'auditLog'
          ? streams.filter((s) => s === 'auditLog' || s === 'releases')
          : streams.filter((s) => s === ref.stream);
      if (targets.length === 0)
        return bad(`destination ${row.name} does not receive the stream of ${body.fromEventId}`);
      for (const s of targets) {
        const position = await this.repository.positionBeforeEvent(s, ref);
        if (!position) throw new ApiError('not_found', `Event ${body.fromEventId} not found`);
        moves.push({ stream: s, position });
      }
    }
    await this.repository.replay(id, moves, ctx, {
      fromTime: body.fromTime ?? null,
      fromEventId: body.fromEventId ?? null,
      streams: moves.map((m) => m.stream),
      wasState: row.state,
    });
    return this.get(id);
  }

  // The streaming families of /metrics: per destination its state, delivered count, last error time and lag.
  async metricsText(): Promise<string> {
    const { items } = await this.list();
    const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
    const lines: string[] = [];
    const fam = (name: string, help: string, type: string, samples: Array<[string, number]>): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples) lines.push(`${name}{${labels}} ${value}`);
    };
    const dl = (d: DestinationView): string => `destination="${esc(d.name)}",type="${d.type}"`;
    fam(
      'hookwarden_stream_delivered_total',
      'Events a streaming destination accepted',
      'counter',
      items.map((d) => [dl(d), d.deliveredCount]),
    );
    fam(
      'hookwarden_stream_lag_seconds',
      'Seconds the oldest event not yet delivered to the destination has waited, per stream (0: caught up)',
      'gauge',
      items.flatMap((d) => d.cursors.map((c): [string, number] => [`${dl(d)},stream="${c.stream}"`, c.lagSec])),
    );
    fam(
      'hookwarden_stream_state',
      'Delivery state of each destination (1 for its current state: active, failing, dead_letter)',
      'gauge',
      items.map((d) => [`${dl(d)},state="${d.state}"`, 1]),
    );
    fam(
      'hookwarden_stream_last_error_timestamp_seconds',
      'When the destination last failed (0: never)',
      'gauge',
      items.map((d) => [dl(d), d.lastErrorAt ? Date.parse(d.lastErrorAt) / 1000 : 0]),
    );
    return lines.join('\n') + '\n';
  }

  // The destination row; 404 when unknown.
  private async row(id: string): Promise<StreamDestination> {
    const row = await this.repository.find(id);
    if (!row) throw new ApiError('not_found', `Destination ${id} not found`);
    return row;
  }

  // Seals a destination's secrets (null when there are none).
  private seal(id: string, secrets: Secrets): string | null {
    const present = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== undefined));
    return Object.keys(present).length === 0 ? null : this.vault.sealSecret(JSON.stringify(present), sealOwner(id));
  }

  // Opens a destination's secrets (empty when none, or when they do not open: the worker reports that).
  secretsOf(row: Pick<StreamDestination, 'id' | 'secretsSealed'>): Secrets {
    if (!row.secretsSealed) return {};
    const text = this.vault.openSecret(row.secretsSealed, sealOwner(row.id));
    return text ? (JSON.parse(text) as Secrets) : {};
  }

  // The public view: settings, which secrets are set (names only), delivery state and each stream's lag.
  private async view(row: StreamDestination): Promise<DestinationView> {
    const streams = row.streams as Streams;
    const cursors = await this.repository.cursors(row.id);
    const now = Date.now();
    const statuses: StreamStatus[] = [];
    for (const c of cursors) {
      if (!chosenStreams(streams).includes(c.stream)) continue;
      const oldest = await this.repository.oldestPending(c.stream, c.position, streams.hookRuns ?? {});
      statuses.push({
        stream: c.stream,
        deliveredCount: c.deliveredCount,
        deliveredAt: c.deliveredAt?.toISOString() ?? null,
        oldestPendingAt: oldest?.toISOString() ?? null,
        lagSec: oldest ? Math.max(0, (now - oldest.getTime()) / 1000) : 0,
      });
    }
    const secretNames = row.secretsSealed
      ? Object.keys(this.secretsOf(row)).filter((k) => k !== 'previousWebhookSecret')
      : [];
    return {
      id: row.id,
      name: row.name,
      type: row.type as DestinationView['type'],
      target: row.config as Target,
      secrets: secretNames,
      secretRotatedAt: row.secretRotatedAt?.toISOString() ?? null,
      previousSecretUntil: row.previousSecretUntil?.toISOString() ?? null,
      streams: streams,
      format: row.format as DestinationView['format'],
      enabled: row.enabled,
      requireAuditDelivery: row.requireAuditDelivery,
      deadLetterAfterSec: row.deadLetterAfterSec,
      batchMaxBytes: row.batchMaxBytes,
      batchMaxEvents: row.batchMaxEvents,
      state: row.state as DestinationView['state'],
      attempts: row.attempts,
      failingSince: row.failingSince?.toISOString() ?? null,
      nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
      lastError: row.lastError,
      lastErrorAt: row.lastErrorAt?.toISOString() ?? null,
      lastDeliveredAt: row.lastDeliveredAt?.toISOString() ?? null,
      deadLetteredAt: row.deadLetteredAt?.toISOString() ?? null,
      deliveredCount: Number(row.deliveredCount),
      lagSec: statuses.reduce((m, s) => Math.max(m, s.lagSec), 0),
      cursors: statuses,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      createdBy: row.createdBy,
    };
  }
}
