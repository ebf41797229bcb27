// The pure parts of streaming: RFC 5424 messages and octet framing, the webhook signature, batch bounding, backoff with
// jitter, the dead-letter rule, event ids, OCSF shaping and alert episodes.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { denialFiring, reconcile } from '../../apps/api/src/streaming/alert-rules';
import { nativeDoc, ocsfDoc, parseEventId, type StreamEvent } from '../../apps/api/src/streaming/stream-events';
import {
  backoffMs,
  batchCount,
  octetFrame,
  parseOctetFrames,
  shouldDeadLetter,
  signatureHeader,
  syslogMessage,
} from '../../apps/api/src/streaming/wire';

const EP = '3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b';
const event: StreamEvent = {
  id: `hookrun:${EP}:11111111-2222-4333-8444-555555555555`,
  stream: 'hookRuns',
  sequence: '7',
  time: '2026-12-01T09:30:00.000Z',
  type: 'hook_run',
  severity: 'warning',
  endpointId: EP,
  data: { hookKey: 'k', status: 'ran', event: 'PreToolUse', decision: 'deny', toolCommand: 'rm -rf "/"]' },
};

describe('streaming wire forms', () => {
  it('an RFC 5424 message with structured data, framed by its byte length (UTF-8)', () => {
    const msg = syslogMessage({ ...event, id: 'a"b]c' }, { note: 'é' }, { facility: 16, hostname: 'host one' });
    expect(msg).toBe(
      `<132>1 2026-12-01T09:30:00.000Z hostone hookwarden - hook_run [hookwarden@32473 id="a\\"b\\]c" stream="hookRuns" seq="7" endpoint="${EP}"] {"note":"é"}`,
    );
    const frame = octetFrame(msg);
    expect(frame.toString('utf8').startsWith(`${Buffer.byteLength(msg)} <132>`)).toBe(true);
    const two = Buffer.concat([frame, octetFrame('x'), Buffer.from('5 ab')]);
    const parsed = parseOctetFrames(two);
    expect(parsed.messages).toEqual([msg, 'x']);
    expect(parsed.rest.toString()).toBe('5 ab');
  });

  it('signs timestamp + "." + body with each secret (current first)', () => {
    const body = Buffer.from('{"a":1}\n');
    const h = signatureHeader(['new-secret', 'old-secret'], '1700000000', body);
    const sig = (s: string) => createHmac('sha256', s).update('1700000000.').update(body).digest('hex');
    expect(h).toBe(`v1=${sig('new-secret')}, v1=${sig('old-secret')}`);
  });

  it('bounds batches by events and bytes, always taking at least one', () => {
    expect(batchCount([10, 10, 10], 1000, 2)).toBe(2);
    expect(batchCount([400, 400, 400], 1000, 10)).toBe(2);
    expect(batchCount([5000, 1], 1000, 10)).toBe(1);
    expect(batchCount([], 1000, 10)).toBe(0);
  });

  it('backs off exponentially with half jitter up to the cap; dead-letters after the configured time', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(4, 1000, 60_000, () => 0)).toBe(4000);
    expect(backoffMs(40, 1000, 60_000, () => 1)).toBe(60_000);
    const since = new Date('2026-12-01T00:00:00Z');
    expect(shouldDeadLetter(since, new Date('2026-12-01T00:00:09Z'), 10)).toBe(false);
    expect(shouldDeadLetter(since, new Date('2026-12-01T00:00:10Z'), 10)).toBe(true);
  });

  it('parses every event-id form and nothing else', () => {
    expect(parseEventId(event.id)).toEqual({
      stream: 'hookRuns',
      endpointId: EP,
      recordId: '11111111-2222-4333-8444-555555555555',
    });
    expect(parseEventId('audit:42')).toEqual({ stream: 'auditLog', seq: 42 });
    expect(parseEventId('alert:3')).toEqual({ stream: 'alerts', seq: 3 });
    expect(parseEventId(`finding:${EP}`)).toEqual({ stream: 'findings', id: EP });
    for (const bad of ['audit:0', 'audit:-1', 'hookrun:x:y', 'finding:', 'nope', `audit:${'9'.repeat(20)}`])
      expect(parseEventId(bad), bad).toBeNull();
  });

  it('native and OCSF documents carry the id and sequence; a denial is disposition blocked', () => {
    expect(nativeDoc(event)).toMatchObject({ schema: 'hookwarden.event/1', id: event.id, sequence: '7' });
    const o = ocsfDoc(event);
    expect(o).toMatchObject({ class_uid: 1007, type_uid: 100701, disposition_id: 2, severity_id: 3 });
    expect(o.metadata).toMatchObject({ uid: event.id, sequence: 7 });
    expect(o.device).toEqual({ uid: EP });
  });

  it('alert episodes: fire what is new, resolve what cleared, leave the rest', () => {
    const firing = [
      { subject: 'a', summary: '', details: {} },
      { subject: 'b', summary: '', details: {} },
    ];
    const open = [
      { id: '1', subject: 'b' },
      { id: '2', subject: 'c' },
    ];
    const d = reconcile(firing, open);
    expect(d.fire.map((f) => f.subject)).toEqual(['a']);
    expect(d.resolve).toEqual(['2']);
    expect(denialFiring(5, { windowSec: 60, maxDenials: 5 })).toEqual([]);
    expect(denialFiring(6, { windowSec: 60, maxDenials: 5 }, 'g')[0]?.subject).toBe('g');
  });
});
