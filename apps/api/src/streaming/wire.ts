// The wire forms of each destination type, as pure functions: RFC 5424 syslog messages with octet-counting framing,
// webhook bodies and their HMAC-SHA256 signature header, Splunk HEC events, OTLP/HTTP JSON logs; plus batch bounding
// and the retry backoff (docs/streaming.md).
import { createHmac } from 'node:crypto';
import type { StreamEvent } from './stream-events';

/** IANA private enterprise number used in the structured-data id (the documentation example number of RFC 5424). */
export const SD_ID = 'hookwarden@32473';
/** Header names of a signed webhook request. */
export const SIGNATURE_HEADER = 'x-hookwarden-signature';
export const TIMESTAMP_HEADER = 'x-hookwarden-timestamp';

const SYSLOG_SEVERITY = { info: 6, warning: 4, error: 3 } as const;

// An RFC 5424 structured-data parameter value (", \ and ] escaped).
function sdValue(v: string): string {
  return v.replace(/[\\"\]]/g, (c) => `\\${c}`);
}

// A printable-ASCII header field of RFC 5424 (NILVALUE when empty), at most `max` characters.
function headerField(v: string, max: number): string {
  const s = v.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return s === '' ? '-' : s;
}

// One RFC 5424 message: `<PRI>1 TIMESTAMP HOST APP - MSGID [SD] BOM? MSG`, MSG being the event's JSON document.
export function syslogMessage(
  e: StreamEvent,
  doc: Record<string, unknown>,
  opts: { facility: number; hostname: string; appName?: string },
): string {
  const pri = opts.facility * 8 + SYSLOG_SEVERITY[e.severity];
  const sd = `[${SD_ID} id="${sdValue(e.id)}" stream="${e.stream}" seq="${e.sequence}"${
    e.endpointId ? ` endpoint="${sdValue(e.endpointId)}"` : ''
  }]`;
  const msgid = headerField(e.type, 32);
  return `<${pri}>1 ${e.time} ${headerField(opts.hostname, 255)} ${headerField(opts.appName ?? 'hookwarden', 48)} - ${msgid} ${sd} ${JSON.stringify(doc)}`;
}

// Octet-counting framing (RFC 6587 3.4.1 / RFC 5425): `MSG-LEN SP SYSLOG-MSG`, the length in bytes.
export function octetFrame(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

// Parses octet-counted frames from a buffer (receivers and tests); returns the messages and the unread rest.
export function parseOctetFrames(buf: Buffer): { messages: string[]; rest: Buffer } {
  const messages: string[] = [];
  let at = 0;
  for (;;) {
    const sp = buf.indexOf(0x20, at);
    if (sp < 0 || sp - at > 10) break;
    const len = Number(buf.subarray(at, sp).toString('ascii'));
    if (!Number.isInteger(len) || len <= 0 || sp + 1 + len > buf.length) break;
    messages.push(buf.subarray(sp + 1, sp + 1 + len).toString('utf8'));
    at = sp + 1 + len;
  }
  return { messages, rest: buf.subarray(at) };
}

// The HMAC-SHA256 of `<timestamp>.<body>` with one secret, hex.
export function webhookSignature(secret: string, timestamp: string, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

// The signature header: `v1=<hex>` for the current secret, then `v1=<hex>` for the previous one during an overlap.
export function signatureHeader(secrets: readonly string[], timestamp: string, body: Buffer): string {
  return secrets.map((s) => `v1=${webhookSignature(s, timestamp, body)}`).join(', ');
}

// A webhook body: a JSON array of documents, or one document per line (NDJSON).
export function webhookBody(docs: readonly Record<string, unknown>[], batch: 'json' | 'ndjson'): Buffer {
  if (batch === 'json') return Buffer.from(JSON.stringify(docs), 'utf8');
  return Buffer.from(docs.map((d) => JSON.stringify(d) + '\n').join(''), 'utf8');
}

// A Splunk HEC body: one `{time, host, source, sourcetype, index?, event}` object per event, concatenated.
export function hecBody(
  events: readonly StreamEvent[],
  docs: readonly Record<string, unknown>[],
  opts: { hostname: string; index?: string; sourcetype?: string },
): Buffer {
  const parts = events.map((e, i) =>
    JSON.stringify({
      time: Date.parse(e.time) / 1000,
      host: opts.hostname,
      source: 'hookwarden',
      sourcetype: opts.sourcetype ?? `hookwarden:${e.stream}`,
      ...(opts.index ? { index: opts.index } : {}),
      event: docs[i],
      fields: { event_id: e.id, stream: e.stream },
    }),
  );
  return Buffer.from(parts.join('\n'), 'utf8');
}

const OTLP_SEVERITY = { info: 9, warning: 13, error: 17 } as const;

// An OTLP/HTTP JSON logs export request (ExportLogsServiceRequest) with one log record per event.
export function otlpBody(
  events: readonly StreamEvent[],
  docs: readonly Record<string, unknown>[],
  opts: { hostname: string },
): Buffer {
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const logRecords = events.map((e, i) => ({
    timeUnixNano: String(BigInt(Date.parse(e.time)) * 1_000_000n),
    observedTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
    severityNumber: OTLP_SEVERITY[e.severity],
    severityText: e.severity.toUpperCase(),
    body: { stringValue: JSON.stringify(docs[i]) },
    attributes: [
      str('event.id', e.id),
      str('event.name', `hookwarden.${e.type}`),
      str('hookwarden.stream', e.stream),
      str('hookwarden.sequence', e.sequence),
      ...(e.endpointId ? [str('hookwarden.endpoint_id', e.endpointId)] : []),
    ],
  }));
  return Buffer.from(
    JSON.stringify({
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'hookwarden'), str('host.name', opts.hostname)] },
          scopeLogs: [{ scope: { name: 'hookwarden.streaming' }, logRecords }],
        },
      ],
    }),
    'utf8',
  );
}

// How many of the leading items fit one batch: at most `maxEvents`, their sizes (plus `overhead` each) at most
// `maxBytes`; always at least one, so an event larger than the bound travels alone instead of blocking its stream.
export function batchCount(sizes: readonly number[], maxBytes: number, maxEvents: number, overhead = 1): number {
  let total = 0;
  let n = 0;
  for (const size of sizes) {
    if (n >= maxEvents) break;
    if (n > 0 && total + size + overhead > maxBytes) break;
    total += size + overhead;
    n++;
  }
  return n;
}

// The delay before retry number `attempts` (1 = first retry): exponential from `baseMs`, capped at `maxMs`, with
// "equal jitter" (half fixed, half random) so destinations that failed together do not retry together.
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

// True when a destination failing since `failingSince` has failed long enough to be dead-lettered.
export function shouldDeadLetter(failingSince: Date, now: Date, deadLetterAfterSec: number): boolean {
  return now.getTime() - failingSince.getTime() >= deadLetterAfterSec * 1000;
}
