// Alert rules and alerts for the API, and the worker's evaluation of every enabled rule (one tick: observe, then open
// the new episodes and resolve the cleared ones; each fires once per episode).
import { Injectable } from '@nestjs/common';
import type { AlertRule } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { denialFiring, type Firing, reconcile, withDefaults } from './alert-rules';
import { AlertsRepository } from './alerts.repository';
import type {
  AlertKind,
  AlertParams,
  AlertRuleView,
  AlertView,
  CreateAlertRule,
  UpdateAlertRule,
} from './streaming.dto';

// The public view of a rule.
function ruleView(r: AlertRule): AlertRuleView {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind as AlertKind,
    params: r.params as AlertParams,
    enabled: r.enabled,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    createdBy: r.createdBy,
  };
}

@Injectable()
export class AlertsService {
  constructor(private readonly repository: AlertsRepository) {}

  // Every rule.
  async rules(): Promise<{ items: AlertRuleView[] }> {
    return { items: (await this.repository.rules()).map(ruleView) };
  }

  // Creates a rule (409 on a taken name).
  async createRule(body: CreateAlertRule, ctx: AuditContext): Promise<AlertRuleView> {
    if (await this.repository.nameTaken(body.name))
      throw new ApiError('conflict', `An alert rule named "${body.name}" exists`);
    const row = await this.repository.createRule(
      { name: body.name, kind: body.kind, params: body.params, enabled: body.enabled },
      ctx,
    );
    return ruleView(row);
  }

  // Changes a rule.
  async updateRule(id: string, body: UpdateAlertRule, ctx: AuditContext): Promise<AlertRuleView> {
    if (!(await this.repository.rule(id))) throw new ApiError('not_found', `Alert rule ${id} not found`);
    if (body.name && (await this.repository.nameTaken(body.name, id)))
      throw new ApiError('conflict', `An alert rule named "${body.name}" exists`);
    const row = await this.repository.updateRule(
      id,
      {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.params !== undefined ? { params: body.params } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      },
      ctx,
    );
    return ruleView(row);
  }

  // Deletes a rule and its alerts.
  async deleteRule(id: string, ctx: AuditContext): Promise<AlertRuleView> {
    const row = await this.repository.rule(id);
    if (!row) throw new ApiError('not_found', `Alert rule ${id} not found`);
    await this.repository.deleteRule(id, ctx, { name: row.name, kind: row.kind });
    return ruleView(row);
  }

  // Alerts newest first.
  async list(query: { state?: 'firing' | 'resolved'; limit: number }): Promise<{ items: AlertView[] }> {
    const rows = await this.repository.alerts(query.state, query.limit);
    return {
      items: rows.map((a) => ({
        id: a.id,
        ruleId: a.ruleId,
        ruleName: a.rule.name,
        kind: a.rule.kind as AlertKind,
        subject: a.subject,
        state: a.state as AlertView['state'],
        summary: a.summary,
        details: a.details as Record<string, unknown>,
        firedAt: a.firedAt.toISOString(),
        resolvedAt: a.resolvedAt?.toISOString() ?? null,
      })),
    };
  }

  // One evaluation of every enabled rule; returns how many episodes opened and resolved.
  async evaluate(): Promise<{ fired: number; resolved: number }> {
    let fired = 0;
    let resolved = 0;
    for (const rule of await this.repository.rules()) {
      if (!rule.enabled) continue;
      const firing = await this.observe(rule);
      const diff = reconcile(firing, await this.repository.openAlerts(rule.id));
      for (const f of diff.fire) if (await this.repository.fire(rule, f)) fired++;
      for (const id of diff.resolve) if (await this.repository.resolve(id)) resolved++;
    }
    return { fired, resolved };
  }

  // What a rule observes firing now.
  private async observe(rule: AlertRule): Promise<Firing[]> {
    const kind = rule.kind as AlertKind;
    const p = withDefaults(rule.params as AlertParams);
    switch (kind) {
      case 'denial_rate':
        return denialFiring(await this.repository.denials(p.windowSec, p.groupId), p, p.groupId);
      case 'chain_gap':
        return this.repository.openChainGaps();
      case 'endpoint_silent':
        return this.repository.silentEndpoints(p.hours, p.groupId);
      case 'rollout_paused':
        return this.repository.gatePausedReleases();
      case 'signing_key_age':
        return this.repository.oldSigningKeys(p.maxAgeDays);
    }
  }
}
