// Every admin audit action, with the type of target it names: one table, checked by the compiler at every
// appendAudit call (an action outside it, or with another target type, does not compile).

/** The kinds of target an audit entry names. */
export const AUDIT_TARGET_TYPES = [
  'group',
  'policy',
  'release',
  'endpoint',
  'enrollment_secret',
  'signing_key',
  'token',
  'session',
  'hook_hash',
  'hook_runs_partition',
  'stream_destination',
  'alert_rule',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** One row of the action table: what the action targets and what it records. */
interface AuditActionSpec {
  target: AuditTargetType;
  summary: string;
}

export const AUDIT_ACTIONS = {
  'group.create': { target: 'group', summary: 'a group was created' },
  'group.update': { target: 'group', summary: 'a group was renamed or re-described' },
  'group.delete': { target: 'group', summary: 'a group was deleted' },
  'group.audit_settings.update': { target: 'group', summary: 'a group’s capture settings changed' },
  'policy.create': { target: 'policy', summary: 'a policy was created' },
  'policy.update': { target: 'policy', summary: 'a policy was renamed or re-described' },
  'policy.move': { target: 'policy', summary: 'a policy moved to another group' },
  'policy.delete': { target: 'policy', summary: 'a policy was deleted' },
  'policy.version.create': { target: 'policy', summary: 'a policy version was authored' },
  'release.create': { target: 'release', summary: 'a release was created' },
  'release.advance': { target: 'release', summary: 'a staged release moved to its next ring' },
  'release.pause': { target: 'release', summary: 'an admin paused a release' },
  'release.auto_pause': { target: 'release', summary: 'a release’s gate paused it' },
  'release.resume': { target: 'release', summary: 'a paused release resumed' },
  'release.abort': { target: 'release', summary: 'a release was aborted (and rolled back)' },
  'release.promote': {
    target: 'release',
    summary: 'a shadow release was promoted to a staged release of the same version (with its shadow report)',
  },
  'release.shadow_abort': {
    target: 'release',
    summary: 'a shadow release was aborted: its shadow layer is removed everywhere (with its shadow report)',
  },
  'endpoint.enroll': { target: 'endpoint', summary: 'an endpoint enrolled' },
  'endpoint.reenroll': { target: 'endpoint', summary: 'an endpoint enrolled again, proving its key' },
  'endpoint.enroll_pending': {
    target: 'endpoint',
    summary: 'an enrollment claimed a known machine id without proof of its key: pending approval',
  },
  'endpoint.key_migrate': { target: 'endpoint', summary: 'a bearer-enrolled endpoint registered its own key' },
  'endpoint.revoke': { target: 'endpoint', summary: 'an endpoint was revoked' },
  'endpoint.move': { target: 'endpoint', summary: 'an endpoint moved to another group' },
  'endpoint.approve': { target: 'endpoint', summary: 'an enrollment pending approval was admitted' },
  'endpoint.reject': { target: 'endpoint', summary: 'an enrollment pending approval was rejected' },
  'endpoint.readmit': { target: 'endpoint', summary: 'a revoked endpoint was admitted again' },
  'endpoint.retire': { target: 'endpoint', summary: 'an endpoint was retired for the approved one of its machine' },
  'enrollment_secret.create': { target: 'enrollment_secret', summary: 'an enrollment secret was created' },
  'enrollment_secret.revoke': { target: 'enrollment_secret', summary: 'an enrollment secret was revoked' },
  'signing_key.create': { target: 'signing_key', summary: 'a signing key was created' },
  'signing_key.activate': { target: 'signing_key', summary: 'a signing key became the active one' },
  'signing_key.retire': { target: 'signing_key', summary: 'a signing key was retired' },
  'token.create': { target: 'token', summary: 'an API token was created' },
  'token.create_personal': { target: 'token', summary: 'a person created a personal token' },
  'token.bootstrap': { target: 'token', summary: 'the bootstrap admin token was installed' },
  'token.revoke': { target: 'token', summary: 'a token was revoked' },
  'session.create': { target: 'session', summary: 'a person signed in' },
  'session.refuse': { target: 'session', summary: 'a sign-in was refused' },
  'session.role_change': { target: 'session', summary: 'a session’s role changed at sign-in refresh' },
  'session.revoke': { target: 'session', summary: 'a session was signed out or revoked' },
  'inventory.deny_hash': { target: 'hook_hash', summary: 'a hook hash was put on the known-bad list' },
  'inventory.undeny_hash': { target: 'hook_hash', summary: 'a hook hash was taken off the known-bad list' },
  'hook_runs.partition.drop': { target: 'hook_runs_partition', summary: 'a hook-run partition was dropped' },
  'stream_destination.create': { target: 'stream_destination', summary: 'a streaming destination was created' },
  'stream_destination.update': { target: 'stream_destination', summary: 'a streaming destination was changed' },
  'stream_destination.delete': { target: 'stream_destination', summary: 'a streaming destination was deleted' },
  'stream_destination.rotate_secret': {
    target: 'stream_destination',
    summary: 'a webhook destination’s signing secret was rotated (the previous one signs until the overlap ends)',
  },
  'stream_destination.replay': {
    target: 'stream_destination',
    summary: 'a destination’s cursors were moved back (replay) or its dead letter was cleared',
  },
  'alert_rule.create': { target: 'alert_rule', summary: 'an alert rule was created' },
  'alert_rule.update': { target: 'alert_rule', summary: 'an alert rule was changed' },
  'alert_rule.delete': { target: 'alert_rule', summary: 'an alert rule was deleted' },
} as const satisfies Record<`${string}.${string}`, AuditActionSpec>;

/** An audit action of the table. */
export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The actions on a release (the release repository's guarded transitions record one of them). */
export type ReleaseAuditAction = { [A in AuditAction]: AuditTargetOf<A> extends 'release' ? A : never }[AuditAction];

/** The target type of an action, as the table names it. */
export type AuditTargetOf<A extends AuditAction> = (typeof AUDIT_ACTIONS)[A]['target'];

/** Every action, in table order (the audit-log `action` filter's enum). */
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];
