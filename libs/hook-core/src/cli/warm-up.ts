// Work done once while the V8 startup snapshot is built, so the snapshot holds compiled parsers and validators — the
// hook path only: the commander program (help, list, trust, lint …) is not in the snapshot, so a hook event does not
// deserialize it; those commands load it when they run.
import { discoverHooks } from '../config/discover';
import type { DiscoveryFs } from '../config/env';
import { aggregate } from '../outcome/aggregate';
import { parseRun } from '../outcome/parse';
import { lintPolicy } from '../policy/lint';
import type { RunResult } from '../run/runner';
import { parsePolicyToml } from '../policy/parse';
import { runDispatch } from './dispatch-command';
import { parseDispatchLine } from './dispatch-fast';

/** A managed policy with a hook on every kind of event the engine parses (never written to disk). */
const SAMPLE_POLICY = `allow_managed_hooks_only = true

[features]
hooks = true

[hooks]
managed_dir = "/opt/warm-up/hooks"

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/warm-up/hooks/check.sh"
timeout = 30
statusMessage = "warming up"

[[hooks.PostToolUse]]
matcher = "Edit|Write"

[[hooks.PostToolUse.hooks]]
type = "command"
command = "/opt/warm-up/hooks/check.sh"

[[hooks.SessionStart]]

[[hooks.SessionStart.hooks]]
type = "command"
command = "/opt/warm-up/hooks/check.sh"
`;

/** A finished run printing `stdout` with exit code `exitCode`. */
const ran = (stdout: string, exitCode = 0): RunResult => ({
  startedAt: 0,
  durationMs: 1,
  exitCode,
  signal: null,
  timedOut: false,
  stdout,
  stderr: exitCode === 2 ? 'blocked by policy' : '',
  stdoutTruncated: false,
  stderrTruncated: false,
});

/** Parses, validates and lints the sample policy, interprets sample outputs and parses command lines (pure). */
export function warmUpCli(): void {
  const deny = JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
  });
  const outputs = [ran(''), ran(deny), ran('', 2), ran('{"systemMessage":"hi"}'), ran('plain text')];
  const parsed = outputs.map((r, i) => ({
    parsed: parseRun('PreToolUse', r, { toolName: 'Bash' }),
    hookRunId: `w${i}`,
  }));
  aggregate('PreToolUse', parsed, { command: 'ls' });
  for (let i = 0; i < 3; i++) {
    const parsed = parsePolicyToml(SAMPLE_POLICY, '/etc/zerotwo/requirements.toml');
    if (parsed.ok) lintPolicy(parsed.policy, [], { sourceText: SAMPLE_POLICY });
  }
  // Discovery through an in-memory filesystem. Never dispatch or draw random values here: a value computed now is
  // in every process started from the snapshot (Node's randomUUID entropy cache would hand all of them the same ids).
  // Math.random is reseeded on deserialization; crypto's caches are not.
  const files: Record<string, string> = { '/warm/etc/requirements.toml': SAMPLE_POLICY, '/warm/home/config.toml': '' };
  const memoryFs: DiscoveryFs = { readFile: (p) => files[p], exists: (p) => p in files || p === '/warm' };
  const discovery = discoverHooks({
    home: '/warm/home',
    homeDir: '/warm/home',
    systemDir: '/warm/etc',
    requirementsPath: '/warm/etc/requirements.toml',
    cwd: '/warm',
    env: {},
    fs: memoryFs,
  });
  if (discovery.hooks.length === 0) throw new Error('warm-up: the sample policy yielded no hooks');
  // The dispatch line's parser (cli/dispatch-fast), as an agent writes the line.
  const line = ['dispatch', 'PreToolUse', '--home', '/nonexistent', '--capture', 'digests', '--max-excerpt-bytes=10'];
  if (parseDispatchLine(line)?.opts.capture !== 'digests') throw new Error('warm-up: the dispatch line did not parse');
  // The dispatch command and the engine it runs are loaded (in the snapshot), not run.
  if (typeof runDispatch !== 'function') throw new Error('warm-up: no dispatch command');
}
