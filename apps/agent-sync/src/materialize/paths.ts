// Where the managed layer's files are on each platform (the engine reads them there): small, for the hook path.
import path from 'node:path';

// Where the managed requirements live for the platform (hook-core reads them there), under `root`.
// `root` '/' is the system root on every platform: on Windows that is %ProgramData% with its own drive.
export function requirementsPathFor(
  root: string,
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): string {
  if (platform === 'win32') {
    const programData = env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData';
    return path.win32.join(
      root === '/' ? programData : path.win32.join(root, programData.replace(/^[A-Za-z]:/, '')),
      'ZeroTwo',
      'requirements.toml',
    );
  }
  return path.posix.join(root, 'etc', 'zerotwo', 'requirements.toml');
}
