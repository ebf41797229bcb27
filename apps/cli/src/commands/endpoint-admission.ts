// `hookwarden endpoints approve|reject|readmit <id>`: an admin's decisions on enrollments (a pending duplicate
// machine id approved or rejected, a revoked endpoint re-admitted), and the admission columns of `endpoints list`.
import type { Command } from 'commander';
import { QUERY_ENUMS, type Schemas } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid } from '../cli/parse';

/** An endpoint as the API shows it (the admission part is what these commands print). */
export type AdmissionView = Schemas['EndpointViewDto'];

/** The values `endpoints list --admission` takes (from the document). */
export const ADMISSIONS = QUERY_ENUMS['/v1/endpoints'].admission;

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
          const client = await rt.client();
          const path = { id };
          if (name === 'approve') {
            const res = await client.json('POST', '/v1/endpoints/{id}/approve', { path });
            if (rt.format === 'json') return rt.json(res);
            return rt.out(`${d.done(res.endpoint, res.retired)}\n`);
          }
          const res =
            name === 'reject'
              ? await client.json('POST', '/v1/endpoints/{id}/reject', { path })
              : await client.json('POST', '/v1/endpoints/{id}/readmit', { path });
          if (rt.format === 'json') return rt.json(res);
          rt.out(`${d.done(res, null)}\n`);
        }),
      [`hookwarden endpoints ${name} 5f1e…`],
    );
  }
}
