// The worker's delivery: one runner per enabled destination (one worker holds it, by an advisory lock) reads each of
// its streams after its cursor, sends a batch bounded in events and bytes, and moves the cursor only after the
// destination accepted it (at-least-once; event ids are stable). A failure is retried with exponential backoff and
// jitter (never a busy loop) until the destination has failed for deadLetterAfterSec: then it is dead-lettered with
// the reason and waits for a replay. The runner only reads committed rows: ingest never waits for it.
import { hostname } from 'node:os';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { StreamDestination } from '@prisma/client';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { AlertsService } from './alerts.service';
import { eventDoc, type StreamEvent } from './stream-events';
import type { Secrets, StreamName, Streams, Target } from './streaming.dto';
import { type DeliveryLock, type Position, StreamingRepository } from './streaming.repository';
import { chosenStreams, StreamingService } from './streaming.service';
import { DeliveryError, postHttp, sendSyslog } from './transports';
import {
  backoffMs,
  batchCount,
  hecBody,
  octetFrame,
  otlpBody,
  shouldDeadLetter,
  signatureHeader,
  syslogMessage,
  TIMESTAMP_HEADER,
  SIGNATURE_HEADER,
  webhookBody,
} from './wire';

/** The outcome of one delivery step. */
type Step = 'more' | 'idle' | 'failed';

/** One encoded event: its bytes on the wire (syslog frame or JSON document). */
interface Item {
  event: StreamEvent;
  doc: Record<string, unknown>;
  bytes: Buffer;
}

// The same position (cursor positions are small flat objects).
function samePosition(a: Position, b: Position): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

@Injectable()
export class DeliveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StreamDelivery');
  private readonly runners = new Map<string, Promise<void>>();
  private readonly wakers = new Set<() => void>();
  private stopped = false;
  private manager: Promise<void> | null = null;
  private alertsLoop: Promise<void> | null = null;
  private readonly host: string;

  constructor(
    private readonly repository: StreamingRepository,
    private readonly streaming: StreamingService,
    private readonly alerts: AlertsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.host = config.STREAM_HOSTNAME ?? (hostname().replace(/[^\x21-\x7e]/g, '') || 'hookwarden');
  }

  // Starts the destination manager and the alert evaluation loop.
  onApplicationBootstrap(): void {
    this.manager = this.manage();
    this.alertsLoop = this.evaluateAlerts();
  }

  // Stops every runner after its current step.
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const wake of this.wakers) wake();
    await Promise.allSettled([this.manager, this.alertsLoop, ...this.runners.values()]);
  }

  // Sleeps `ms`, or less when the process stops.
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  // Keeps one runner per enabled, not dead-lettered destination.
  private async manage(): Promise<void> {
    while (!this.stopped) {
      try {
        for (const d of await this.repository.list()) {
          if (!d.enabled || d.state === 'dead_letter' || this.runners.has(d.id)) continue;
          const run = this.run(d.id).finally(() => this.runners.delete(d.id));
          this.runners.set(d.id, run);
        }
      } catch (err) {
        this.logger.warn(`listing destinations failed (retrying): ${(err as Error).message}`);
      }
      await this.sleep(this.config.STREAM_POLL_MS);
    }
  }

  // Delivers one destination while it is enabled and this worker holds its lock.
  private async run(id: string): Promise<void> {
    let lock: DeliveryLock | null = null;
    try {
      lock = await this.repository.tryLock(id);
      if (!lock) return; // another worker delivers it
      while (!this.stopped && lock.held()) {
        const d = await this.repository.find(id);
        if (!d || !d.enabled || d.state === 'dead_letter') return;
        const wait = d.nextAttemptAt ? d.nextAttemptAt.getTime() - Date.now() : 0;
        if (wait > 0) {
          await this.sleep(Math.min(wait, this.config.STREAM_POLL_MS));
          continue;
        }
        const step = await this.step(d);
        if (step !== 'more') await this.sleep(this.config.STREAM_POLL_MS);
      }
    } catch (err) {
      this.logger.warn(`destination ${id}: runner stopped (restarted next tick): ${(err as Error).message}`);
      await this.sleep(this.config.STREAM_POLL_MS);
    } finally {
      await lock?.release();
    }
  }

  // One pass over the destination's streams: at most one batch each. A failure is recorded with its backoff.
  async step(d: StreamDestination): Promise<Step> {
    const streams = d.streams as Streams;
    let more = false;
    try {
      const secrets = this.streaming.secretsOf(d);
      if (d.secretsSealed && Object.keys(secrets).length === 0)
        throw new DeliveryError('the destination secrets do not open with the configured KEK');
      const horizon = await this.repository.horizon();
      const cursors = new Map((await this.repository.cursors(d.id)).map((c) => [c.stream, c]));
      for (const stream of chosenStreams(streams)) {
        const cursor = cursors.get(stream) ?? (await this.repository.ensureCursor(d.id, stream));
        const read = await this.repository.read(
          stream,
          cursor.position,
          horizon,
          d.batchMaxEvents,
          streams.hookRuns ?? {},
        );
        if (read.events.length === 0) {
          if (!samePosition(read.end, cursor.position))
            await this.repository.advance(d.id, stream, cursor.position, read.end, 0);
          continue;
        }
        const items = read.events.map(({ event }, i) =>
          this.encode(d, { ...event, sequence: String(cursor.deliveredCount + i + 1) }),
        );
        const n = batchCount(
          items.map((it) => it.bytes.length),
          d.batchMaxBytes,
          d.batchMaxEvents,
        );
        await this.send(d, secrets, stream, items.slice(0, n));
        const to = n === read.events.length ? read.end : read.events[n - 1]!.position;
        await this.repository.advance(d.id, stream, cursor.position, to, n);
        if (n < read.events.length || read.events.length >= d.batchMaxEvents) more = true;
      }
      if (d.state === 'failing') await this.repository.recovered(d.id);
      return more ? 'more' : 'idle';
    } catch (err) {
      const reason = err instanceof DeliveryError ? err.message : `internal: ${(err as Error).message}`;
      const now = new Date();
      const deadLetter = shouldDeadLetter(d.failingSince ?? now, now, d.deadLetterAfterSec);
      const retryIn = backoffMs(d.attempts + 1, this.config.STREAM_BACKOFF_BASE_MS, this.config.STREAM_BACKOFF_MAX_MS);
      await this.repository.failed(
        d.id,
        deadLetter ? `dead-lettered after failing since ${(d.failingSince ?? now).toISOString()}: ${reason}` : reason,
        retryIn,
        deadLetter,
      );
      this.logger.warn(
        `destination ${d.name}: ${reason}${deadLetter ? ' (dead-lettered)' : ` (retry in ${retryIn} ms)`}`,
      );
      return 'failed';
    }
  }

  // An event in the destination's format and wire form.
  private encode(d: StreamDestination, event: StreamEvent): Item {
    const target = d.config as Target;
    const doc = eventDoc(event, d.format === 'ocsf' ? 'ocsf' : 'native');
    if (target.type === 'syslog_tcp' || target.type === 'syslog_tls') {
      return {
        event,
        doc,
        bytes: octetFrame(syslogMessage(event, doc, { facility: target.facility, hostname: this.host })),
      };
    }
    return { event, doc, bytes: Buffer.from(JSON.stringify(doc), 'utf8') };
  }

  // Sends one batch; throws a DeliveryError naming what failed.
  private async send(d: StreamDestination, secrets: Secrets, stream: StreamName, items: Item[]): Promise<void> {
    const target = d.config as Target;
    if (target.type === 'syslog_tcp' || target.type === 'syslog_tls') {
      await sendSyslog(
        {
          host: target.host,
          port: target.port,
          timeoutMs: target.timeoutMs,
          ...(target.type === 'syslog_tls'
            ? {
                tls: {
                  ca: target.caPem,
                  ...(target.serverName ? { serverName: target.serverName } : {}),
                  ...(target.clientCertPem && secrets.clientKeyPem
                    ? { cert: target.clientCertPem, key: secrets.clientKeyPem }
                    : {}),
                },
              }
            : {}),
        },
        items.map((it) => it.bytes),
      );
      return;
    }
    const events = items.map((it) => it.event);
    const docs = items.map((it) => it.doc);
    let body: Buffer;
    let url = target.url;
    const headers: Record<string, string> = { ...(secrets.headers ?? {}), 'user-agent': 'hookwarden-streaming/1' };
    if (target.type === 'webhook') {
      body = webhookBody(docs, target.batch);
      headers['content-type'] = target.batch === 'json' ? 'application/json' : 'application/x-ndjson';
    } else if (target.type === 'splunk_hec') {
      body = hecBody(events, docs, {
        hostname: this.host,
        ...(target.index ? { index: target.index } : {}),
        ...(target.sourcetype ? { sourcetype: target.sourcetype } : {}),
      });
      headers['content-type'] = 'application/json';
      headers.authorization = `Splunk ${secrets.hecToken ?? ''}`;
      if (new URL(url).pathname === '/') url = new URL('/services/collector/event', url).toString();
    } else {
      body = otlpBody(events, docs, { hostname: this.host });
      headers['content-type'] = 'application/json';
      if (new URL(url).pathname === '/') url = new URL('/v1/logs', url).toString();
    }
    if (target.gzip) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    headers['x-hookwarden-stream'] = stream;
    headers['x-hookwarden-events'] = String(items.length);
    // The same batch (same events) carries the same key when it is sent again.
    headers['idempotency-key'] = createHash('sha256')
      .update(`${d.id}\0${events[0]!.id}\0${events[events.length - 1]!.id}\0${items.length}`)
      .digest('hex')
      .slice(0, 32);
    if (target.type === 'webhook') {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const keys = [secrets.webhookSecret ?? ''];
      if (secrets.previousWebhookSecret && d.previousSecretUntil && d.previousSecretUntil.getTime() > Date.now())
        keys.push(secrets.previousWebhookSecret);
      headers[TIMESTAMP_HEADER] = timestamp;
      headers[SIGNATURE_HEADER] = signatureHeader(keys, timestamp, body);
    }
    await postHttp({ url, timeoutMs: target.timeoutMs, ...(target.caPem ? { ca: target.caPem } : {}) }, headers, body);
  }

  // Evaluates the alert rules every ALERT_INTERVAL_SEC.
  private async evaluateAlerts(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.alerts.evaluate();
      } catch (err) {
        this.logger.warn(`alert evaluation failed (retrying next tick): ${(err as Error).message}`);
      }
      await this.sleep(this.config.ALERT_INTERVAL_SEC * 1000);
    }
  }
}
