// `hookwarden-agent status`: applied version, revision, last check-in and drift, from the state directory and disk.
import type { Command } from 'commander';
import { Layer } from '../materialize/layer';
import { ShadowLayer } from '../materialize/shadow-layer';
import { readAgentState } from '../state/agent-state';
import { readCredentials } from '../state/credentials';
import { readEndpointKey } from '../state/endpoint-key';
import { currentAssignment } from '../bundle/binding';
import { withLocationOptions } from './options';

// Adds the status command.
export function registerStatusCommand(program: Command): void {
  withLocationOptions(
    program.command('status').description('show the applied policy version, revision, last check-in and drift'),
  )
    .option('--json', 'print JSON')
    .action(async (opts: { stateDir: string; root: string; json?: boolean }) => {
      const creds = await readCredentials(opts.stateDir);
      const key = await readEndpointKey(opts.stateDir).catch(() => null);
      const state = await readAgentState(opts.stateDir);
      const disk = await new Layer({ root: opts.root }).inspect();
      const shadowDisk = await new ShadowLayer({ root: opts.root }).current();
      const out = {
        enrolled: !!creds,
        endpointId: creds?.endpointId ?? null,
        /** How requests are authenticated: the endpoint key's id, or the legacy bearer until it migrates. */
        identity: key ? key.keyId : creds?.credential ? 'legacy bearer (migrates on the next run)' : null,
        server: creds?.serverUrl ?? null,
        groupId: creds ? currentAssignment(creds).groupId : null,
        assignmentEpoch: creds ? currentAssignment(creds).epoch : null,
        keyListSequence: creds?.keyListSequence ?? null,
        policyVersion: disk.meta?.policyVersion ?? null,
        revision: disk.meta?.revision ?? null,
        digest: disk.meta?.digest ?? null,
        lastCheckIn: state.lastCheckInAt,
        lastState: state.lastState,
        lastError: state.lastError,
        drift: disk.drift,
        /** The shadow layer (observe mode): the shadow release the agent applied, as on disk. */
        shadow: state.shadow
          ? {
              releaseId: state.shadow.releaseId,
              revision: state.shadow.revision,
              digest: state.shadow.digest,
              onDisk: shadowDisk?.digest === state.shadow.digest,
            }
          : null,
        shadowError: state.shadowError,
      };
      if (opts.json) {
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
        return;
      }
      const lines = [
        `enrolled:       ${out.enrolled ? `yes (endpoint ${out.endpointId} at ${out.server})` : 'no'}`,
        `identity:       ${out.identity ?? '-'}`,
        `group:          ${out.groupId ?? '-'} (assignment epoch ${out.assignmentEpoch ?? '-'})`,
        `policy version: ${out.policyVersion ?? '-'}`,
        `revision:       ${out.revision ?? '-'}`,
        `last check-in:  ${out.lastCheckIn ?? 'never'}`,
        `last state:     ${out.lastState ?? '-'}${out.lastError ? ` (${out.lastError})` : ''}`,
        `drift:          ${out.drift.length === 0 ? 'none' : out.drift.join('; ')}`,
        `shadow release: ${out.shadow ? `${out.shadow.releaseId} (revision ${out.shadow.revision}${out.shadow.onDisk ? '' : ', not on disk'})` : 'none'}${out.shadowError ? ` (last refused: ${out.shadowError})` : ''}`,
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });
}
