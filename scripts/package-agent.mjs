// `npm run package:agent`: the endpoint artifact. Each binary in BINARIES becomes one bundled CommonJS file (esbuild,
// every dependency inside) and one single executable (Node SEA + postject) that starts from a V8 startup snapshot of
// that bundle, plus the service units and an installer, in dist/package/<name>-<version>-<os>-<arch>/ and a .tar.gz.
//
//   node scripts/package-agent.mjs [--out DIR] [--node PATH] [--no-sea] [--no-tar] [--only NAME[,NAME]]
//
// --node: the Node.js 20 binary to embed (default: this one). SEA blobs are tied to the exact Node build that makes
// them, so build on the target OS/arch (the recipe for macOS arm64/x64 is in docs/agent.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { root } from './lib.mjs';

/**
 * One row per shipped command. `entry` is its TypeScript entry point (it must call hook-core's startCli so it runs
 * from a startup snapshot); `units` are files copied to share/hookwarden with `@BINDIR@` replaced by the install's bin
 * directory.
 */
export const BINARIES = [
  { name: 'hookwarden-agent', entry: 'apps/agent-sync/src/cli/main.ts', snapshot: true },
  { name: 'zerotwo-hooks', entry: 'libs/hook-core/src/cli/main.ts', snapshot: true },
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

const t0 = performance.now();
rmSync(pkgDir, { recursive: true, force: true });
for (const d of ['bin', 'lib', 'share/hookwarden']) mkdirSync(path.join(pkgDir, d), { recursive: true });

// One CommonJS file per binary with every dependency inside (no node_modules on the endpoint).
for (const b of binaries) {
  const file = path.join(pkgDir, 'lib', `${b.name}.cjs`);
  await build({
    entryPoints: [path.join(root, b.entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    alias: {
      '@hookwarden/hook-core/cli': path.join(root, 'libs/hook-core/src/cli/index.ts'),
      '@hookwarden/hook-core': path.join(root, 'libs/hook-core/src/index.ts'),
      '@hookwarden/agent-sync': path.join(root, 'apps/agent-sync/src/index.ts'),
    },
  });
  chmodSync(file, 0o755);
  say(`bundled   lib/${b.name}.cjs (${mib(file)})`);
}

// A single executable per binary: the Node binary with a SEA blob that holds a startup snapshot of the bundle.
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
    say(`executable bin/${b.name} (${mib(exe)}, startup snapshot ${b.snapshot ? 'on' : 'off'})`);
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
