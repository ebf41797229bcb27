// `hookwarden endpoints approve|reject|readmit <id>`: an admin's decisions on enrollments (a pending duplicate
// machine id approved or rejected, a revoked endpoint re-admitted), and the admission columns of `endpoints list`.
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid } from '../cli/parse';

/** The admission part of an endpoint's view. */
export interface AdmissionView {
  id: string;
  hostname: string;
  groupName: string;
  admission: string;
  duplicateOf: string | null;
  duplicate: { id: string; hostname: string; groupName: string; lastSeenAt: string | null } | null;
  revokedAt: string | null;
}

/** The values `endpoints list --admission` takes. */
export const ADMISSIONS = ['active', 'pending', 'rejected', 'retired'] as const;

// The endpoints list's admission columns: the decision, and for a duplicate the endpoint it duplicates.
export function admissionColumns<T extends AdmissionView>() {
  return [
    { header: 'ADMISSION', get: (e: T) => e.admission },
    {
      header: 'DUPLICATE OF',
      get: (e: T) => (e.duplicate ? `${e.duplicate.hostname} (${e.duplicate.id})` : (e.duplicateOf ?? '-')),
      max: 60,
    },
  ];
}

// Checks an --admission value.
export function admissionOption(value: string | undefined): string | undefined {
  if (value === undefined || (ADMISSIONS as readonly string[]).includes(value)) return value;
  throw new CliError(`--admission must be one of ${ADMISSIONS.join(', ')}, got ${JSON.stringify(value)}`);
}

// What each decision does (its help text) and what it prints once done.
const DECISIONS = {
  approve: {
    description:
      'Approve a pending endpoint (a duplicate machine id): it becomes active, the endpoint it duplicates is retired',
    done: (e: AdmissionView, retired: AdmissionView | null) =>
      `Approved ${e.hostname} (${e.id}) in group "${e.groupName}"` +
      (retired ? `; retired ${retired.hostname} (${retired.id}): its credential no longer works` : ''),
  },
  reject: {
    description: 'Reject a pending endpoint (final): it never gets a working credential',
    done: (e: AdmissionView) => `Rejected ${e.hostname} (${e.id})`,
  },
  readmit: {
    description: 'Re-admit a revoked endpoint: its credential works again (audited)',
    done: (e: AdmissionView) => `Re-admitted ${e.hostname} (${e.id}) in group "${e.groupName}"`,
  },
} as const satisfies Record<
  string,
  { description: string; done: (e: AdmissionView, retired: AdmissionView | null) => string }
>;

// Registers approve, reject and readmit under `endpoints`.
export function registerAdmissionCommands(endpoints: Command): void {
  for (const [name, d] of Object.entries(DECISIONS)) {
    examples(
      endpoints
        .command(`${name} <id>`)
        .description(d.description)
        .action(async (id: string, _o: unknown, cmd: Command) => {
          const rt = runtimeOf(cmd);
          if (!isUuid(id)) throw new CliError(`endpoint id must be a UUID, got ${JSON.stringify(id)}`);
          const res = await (
            await rt.client()
          ).json<AdmissionView | { endpoint: AdmissionView; retired: AdmissionView | null }>(
            'POST',
            `/v1/endpoints/${id}/${name}`,
          );
          if (rt.format === 'json') return rt.json(res);
          const [e, retired] = 'endpoint' in res ? [res.endpoint, res.retired] : [res, null];
          rt.out(`${d.done(e, retired)}\n`);
        }),
      [`hookwarden endpoints ${name} 5f1e…`],
    );
  }
}
