// Location and run options shared by every zerotwo-hooks command.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_CAPTURE_SETTINGS, MAX_EXCERPT_BYTES_LIMIT, redactPatternError } from '../record/capture';
import { excerptBytesError } from './locations';

// The parsed options and what the commands make of them live in ./locations (no commander: the dispatch fast path
// uses them too).
export { capturePolicy, discoverFor, discoverOptions, type CliOptions } from './locations';

/** Collect a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parse `--max-excerpt-bytes`: a decimal integer within the capture settings' bound, else a usage error. */
export function parseExcerptBytes(value: string): number {
  const error = excerptBytesError(value);
  if (error !== null) throw new InvalidArgumentError(error);
  return Number(value);
}

/** Collect `--redact` patterns, refusing one the engine's regex compiler rejects (commands other than dispatch). */
function collectValidPattern(value: string, previous: string[]): string[] {
  const error = redactPatternError(value);
  if (error !== null) throw new InvalidArgumentError(`not a valid regular expression (RE2 syntax): ${error}.`);
  return [...previous, value];
}

/** How the location/run options of one command treat an invalid `--redact` pattern. */
export interface LocationOptionsMode {
  /** dispatch: keep it (dispatch warns, runs the hooks and records no excerpts); else a usage error. */
  lenientRedact?: boolean;
}

/** Add the location/run options to a command (they are accepted on every command). */
export function withLocations(cmd: Command, mode: LocationOptionsMode = {}): Command {
  return cmd
    .option('--home <dir>', 'user layer directory (default $ZEROTWO_HOME or ~/.zerotwo)')
    .option('--project <dir>', 'project root whose .zerotwo/ is the project layer (default: git root above the cwd)')
    .option('--system-dir <dir>', 'system layer directory (default /etc/zerotwo)')
    .option('--requirements <file>', 'managed requirements.toml (default <system-dir>/requirements.toml)')
    .option('--plugin <dir>', 'enabled plugin root (repeatable)', collect, [])
    .option('--temp-dir <dir>', 'temp dir for spilled hook output (default the OS temp dir)')
    .option('--spool <dir>', 'write run records to this spool directory')
    .option('--dangerously-bypass-hook-trust', 'run enabled hooks without persisted trust (this invocation only)')
    .option('--login-shell', 'run hooks through a login shell (bash -lc) instead of /bin/sh -c')
    .option('--cwd <dir>', 'session working directory (default: the input cwd, else the current directory)')
    .addOption(new Option('--capture <mode>', 'run-record output capture').choices(['none', 'digests', 'excerpts']))
    .option(
      '--redact <regex>',
      'extra redaction pattern (RE2 syntax) for record excerpts (repeatable)',
      mode.lenientRedact ? collect : collectValidPattern,
      [],
    )
    .option('--default-redact', 'also apply the built-in secret and token patterns (the default)')
    .option('--no-default-redact', 'apply only the --redact patterns, not the built-in secret and token patterns')
    .option(
      '--max-excerpt-bytes <n>',
      `record excerpt bound in bytes (0 to ${MAX_EXCERPT_BYTES_LIMIT}, default ${DEFAULT_CAPTURE_SETTINGS.maxExcerptBytes})`,
      parseExcerptBytes,
    )
    .option('--policy-revision <rev>', 'policy revision stamped on run records (default $HOOKWARDEN_POLICY_REVISION)');
}
