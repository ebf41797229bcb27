// Alert rules (changes audited), alerts, and what the rules observe; opening and resolving an episode writes its
// alert event (the alerts stream) in the same transaction.
import { Injectable } from '@nestjs/common';
import type { Alert, AlertRule, Prisma } from '@prisma/client';
import type { AuditDetailsOf } from '../audit-log/audit-details';
import { appendAudit, type AuditContext } from '../audit-log/audit-log.writer';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';
import { CHAIN_GAP_KINDS, type Firing } from './alert-rules';

@Injectable()
export class AlertsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pools: PgPools,
  ) {}

  // Every rule, oldest first.
  rules(): Promise<AlertRule[]> {
    return this.prisma.alertRule.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  // One rule, or null.
  rule(id: string): Promise<AlertRule | null> {
    return this.prisma.alertRule.findUnique({ where: { id } });
  }

  // True when another rule has this name.
  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    return (await this.prisma.alertRule.count({ where: { name, ...(exceptId ? { id: { not: exceptId } } : {}) } })) > 0;
  }

  // Creates a rule, audited.
  async createRule(data: Prisma.AlertRuleUncheckedCreateInput, ctx: AuditContext): Promise<AlertRule> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.alertRule.create({ data: { ...data, createdBy: ctx.actorName } });
      await appendAudit(tx, ctx, {
        action: 'alert_rule.create',
        targetType: 'alert_rule',
        targetId: row.id,
        details: { name: row.name, kind: row.kind, params: row.params as Record<string, unknown> },
      });
      return row;
    });
  }

  // Changes a rule, audited.
  async updateRule(id: string, data: Prisma.AlertRuleUpdateInput, ctx: AuditContext): Promise<AlertRule> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.alertRule.update({ where: { id }, data: { ...data, updatedAt: new Date() } });
      await appendAudit(tx, ctx, {
        action: 'alert_rule.update',
        targetType: 'alert_rule',
        targetId: id,
        details: {
          ...(typeof data.name === 'string' ? { name: data.name } : {}),
          ...(data.params !== undefined ? { params: data.params as Record<string, unknown> } : {}),
          ...(typeof data.enabled === 'boolean' ? { enabled: data.enabled } : {}),
        },
      });
      return row;
    });
  }

  // Deletes a rule and its alerts, audited.
  async deleteRule(id: string, ctx: AuditContext, details: AuditDetailsOf<'alert_rule.delete'>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.alertRule.delete({ where: { id } });
      await appendAudit(tx, ctx, { action: 'alert_rule.delete', targetType: 'alert_rule', targetId: id, details });
    });
  }

  // Alerts newest first, with their rule.
  alerts(state: 'firing' | 'resolved' | undefined, limit: number): Promise<Array<Alert & { rule: AlertRule }>> {
    return this.prisma.alert.findMany({
      where: state ? { state } : {},
      orderBy: [{ firedAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: { rule: true },
    });
  }

  // The open episodes of a rule.
  async openAlerts(ruleId: string): Promise<Array<{ id: string; subject: string }>> {
    return this.prisma.alert.findMany({ where: { ruleId, state: 'firing' }, select: { id: true, subject: true } });
  }

  // Opens an episode and writes its `fired` event; false when one is open already (another worker got there first).
  async fire(rule: AlertRule, f: Firing): Promise<boolean> {
    const client = await this.pools.write.connect();
    try {
      await client.query('BEGIN');
      const res = await client.query<{ id: string; fired_at: Date }>(
        `INSERT INTO alerts (id, rule_id, subject, state, summary, details)
         VALUES (gen_random_uuid(), $1, $2, 'firing', $3, $4::jsonb)
         ON CONFLICT (rule_id, subject) WHERE state = 'firing' DO NOTHING RETURNING id, fired_at`,
        [rule.id, f.subject, f.summary, JSON.stringify(f.details)],
      );
      const row = res.rows[0];
      if (row) {
        const doc = {
          alertId: row.id,
          ruleId: rule.id,
          ruleName: rule.name,
          kind: rule.kind,
          subject: f.subject,
          state: 'firing',
          summary: f.summary,
          details: f.details,
          firedAt: row.fired_at.toISOString(),
        };
        await client.query(`INSERT INTO alert_events (alert_id, kind, doc) VALUES ($1, 'fired', $2::jsonb)`, [
          row.id,
          JSON.stringify(doc),
        ]);
      }
      await client.query('COMMIT');
      return Boolean(row);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // Resolves an open episode and writes its `resolved` event (once: a resolved episode is left alone).
  async resolve(alertId: string): Promise<boolean> {
    const client = await this.pools.write.connect();
    try {
      await client.query('BEGIN');
      const res = await client.query<Record<string, unknown>>(
        `UPDATE alerts a SET state = 'resolved', resolved_at = now() FROM alert_rules r
          WHERE a.id = $1 AND a.state = 'firing' AND r.id = a.rule_id
          RETURNING a.id, a.rule_id, r.name, r.kind, a.subject, a.summary, a.details, a.fired_at, a.resolved_at`,
        [alertId],
      );
      const r = res.rows[0];
      if (r) {
        const doc = {
          alertId: r.id,
          ruleId: r.rule_id,
          ruleName: r.name,
          kind: r.kind,
          subject: r.subject,
          state: 'resolved',
          summary: r.summary,
          details: r.details,
          firedAt: (r.fired_at as Date).toISOString(),
          resolvedAt: (r.resolved_at as Date).toISOString(),
        };
        await client.query(`INSERT INTO alert_events (alert_id, kind, doc) VALUES ($1, 'resolved', $2::jsonb)`, [
          alertId,
          JSON.stringify(doc),
        ]);
      }
      await client.query('COMMIT');
      return Boolean(r);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // ---- observations ----

  // Denials (decision deny or block) of hook runs started in the last `windowSec` seconds (one group or all).
  async denials(windowSec: number, groupId?: string): Promise<number> {
    const res = await this.pools.write.query<{ n: number }>(
      `SELECT count(*)::int8 AS n FROM hook_runs
        WHERE started_at >= now() - make_interval(secs => $1) AND decision IN ('deny', 'block')
          AND ($2::uuid IS NULL OR group_id = $2::uuid)`,
      [windowSec, groupId ?? null],
    );
    return res.rows[0]!.n;
  }

  // Open record-chain gap findings.
  async openChainGaps(): Promise<Firing[]> {
    const res = await this.pools.write.query<Record<string, unknown>>(
      `SELECT id, endpoint_id, group_id, kind, from_seq, to_seq FROM hook_run_findings
        WHERE resolved_at IS NULL AND kind = ANY($1::text[]) ORDER BY detected_at LIMIT 1000`,
      [CHAIN_GAP_KINDS],
    );
    return res.rows.map((r) => ({
      subject: String(r.id),
      summary: `record-chain ${String(r.kind)} on endpoint ${String(r.endpoint_id)}${
        r.from_seq !== null ? ` (seq ${Number(r.from_seq)}–${Number(r.to_seq)})` : ''
      }`,
      details: {
        findingId: r.id,
        endpointId: r.endpoint_id,
        groupId: r.group_id,
        kind: r.kind,
        fromSeq: r.from_seq,
        toSeq: r.to_seq,
      },
    }));
  }

  // Admitted endpoints not seen for `hours` (one group or all).
  async silentEndpoints(hours: number, groupId?: string): Promise<Firing[]> {
    const res = await this.pools.write.query<Record<string, unknown>>(
      `SELECT id, hostname, group_id, last_seen_at FROM endpoints
        WHERE admission = 'active' AND revoked_at IS NULL
          AND coalesce(last_seen_at, enrolled_at) < now() - make_interval(secs => $1::float8 * 3600)
          AND ($2::uuid IS NULL OR group_id = $2::uuid)
        ORDER BY id LIMIT 1000`,
      [hours, groupId ?? null],
    );
    return res.rows.map((r) => ({
      subject: String(r.id),
      summary: `endpoint ${String(r.hostname)} not seen for more than ${hours} h`,
      details: {
        endpointId: r.id,
        hostname: r.hostname,
        groupId: r.group_id,
        lastSeenAt: r.last_seen_at instanceof Date ? r.last_seen_at.toISOString() : null,
      },
    }));
  }

  // Releases paused by their gate (the last transition of the release is release.auto_pause).
  async gatePausedReleases(): Promise<Firing[]> {
    const res = await this.pools.write.query<Record<string, unknown>>(
      `SELECT r.id, r.group_id, r.revision, r.paused_reason FROM releases r
        WHERE r.status = 'paused'
          AND (SELECT a.action FROM audit_log a WHERE a.target_type = 'release' AND a.target_id = r.id::text
                ORDER BY a.seq DESC LIMIT 1) = 'release.auto_pause'
        ORDER BY r.id LIMIT 1000`,
    );
    return res.rows.map((r) => ({
      subject: String(r.id),
      summary: `rollout of revision ${String(r.revision)} paused by its gate: ${String(r.paused_reason)}`,
      details: { releaseId: r.id, groupId: r.group_id, revision: r.revision, reason: r.paused_reason },
    }));
  }

  // The active signing key when it is older than `maxAgeDays` (since it became active).
  async oldSigningKeys(maxAgeDays: number): Promise<Firing[]> {
    const res = await this.pools.write.query<{ kid: string; since: Date }>(
      `WITH active AS (SELECT kid, coalesce(activated_at, created_at) AS since FROM signing_keys WHERE retired_at IS NULL
                       ORDER BY activated_at DESC NULLS LAST, created_at DESC LIMIT 1)
       SELECT kid, since FROM active WHERE since < now() - make_interval(secs => $1::float8 * 86400)`,
      [maxAgeDays],
    );
    return res.rows.map((r) => ({
      subject: r.kid,
      summary: `signing key ${r.kid} has been active since ${r.since.toISOString()} (rotation age ${maxAgeDays} days)`,
      details: { kid: r.kid, activeSince: r.since.toISOString(), maxAgeDays },
    }));
  }
}
