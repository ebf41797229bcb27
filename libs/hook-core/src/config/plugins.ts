// Plugin hook sources: the manifest `hooks` entry (paths inside the root, or inline objects) or hooks/hooks.json.
import type { ConfigDiagnostic } from '../types';
import { DiagnosticCollector, type DocPath } from './diagnostics';
import type { DiscoveryFs, PathApi } from './env';
import { parseJsonLocated } from './json-located';
import { loadHooksJsonText, type LoadedFile } from './load-files';
import { normalizeHooksTable } from './normalize';

/** A plugin to load hooks from. */
export interface PluginSpec {
  root: string;
  /** Plugin id used in trust keys (default: manifest `name`, else the root's base name). */
  name?: string;
  /** Writable data directory (default `<user dir>/plugins/data/<name>`). */
  dataDir?: string;
}

/** One hook source of a plugin: the loaded file plus the trust-key source (`<name>:<relative path>`). */
export interface PluginSource {
  keySource: string;
  loaded: LoadedFile;
}

export interface ResolvedPlugin {
  name: string;
  root: string;
  sources: PluginSource[];
  diagnostics: ConfigDiagnostic[];
  /** Set when the plugin contributes nothing because of a problem (reported as a skipped source). */
  skipReason?: string;
}

const MANIFESTS = ['.codex-plugin/plugin.json', '.zerotwo-plugin/plugin.json'];

// Whether `abs` lies strictly inside `root`.
function inside(root: string, abs: string, p: PathApi): boolean {
  const back = p.relative(root, abs);
  return back !== '' && !back.startsWith('..') && !p.isAbsolute(back);
}

// Resolves a `./`-prefixed manifest path inside the root (symlinks included); an error when it escapes.
function resolveInside(root: string, rel: string, p: PathApi, fs: DiscoveryFs): { abs: string } | { error: string } {
  if (!rel.startsWith('./')) return { error: `hook path ${JSON.stringify(rel)} must start with ./` };
  const abs = p.resolve(root, rel);
  if (!inside(root, abs, p)) return { error: `hook path ${JSON.stringify(rel)} leaves the plugin root` };
  const realRoot = fs.realpath?.(root);
  const realAbs = fs.realpath?.(abs);
  if (realRoot !== undefined && realAbs !== undefined && !inside(realRoot, realAbs, p)) {
    return { error: `hook path ${JSON.stringify(rel)} resolves (through a symlink) outside the plugin root` };
  }
  return { abs };
}

// Relative `/`-separated path of a file inside the plugin root.
function relPath(root: string, abs: string, p: PathApi): string {
  return p.relative(root, abs).split(p.sep).join('/');
}

// Loads every hook source a plugin declares.
export function resolvePlugin(spec: PluginSpec, fs: DiscoveryFs, p: PathApi): ResolvedPlugin {
  const root = p.resolve(spec.root);
  const diagnostics: ConfigDiagnostic[] = [];
  // A file that cannot be read (directory, FIFO, symlink loop, too large) is skipped with a located warning.
  const read = (path: string): string | undefined => {
    try {
      return fs.readFile(path);
    } catch (e) {
      diagnostics.push({
        severity: 'warning',
        code: 'read_error',
        message: `cannot read ${path}: ${(e as Error).message}; file ignored`,
        file: path,
      });
      return undefined;
    }
  };
  let manifestPath: string | undefined;
  let manifestText: string | undefined;
  for (const m of MANIFESTS) {
    const candidate = p.join(root, ...m.split('/'));
    const text = read(candidate);
    if (text !== undefined) {
      manifestPath = candidate;
      manifestText = text;
      break;
    }
  }
  let name = spec.name ?? p.basename(root);
  const loadFile = (abs: string): PluginSource | undefined => {
    const text = read(abs);
    if (text === undefined) return undefined;
    const loaded = loadHooksJsonText(text, abs);
    return { keySource: `${name}:${relPath(root, abs, p)}`, loaded };
  };
  const defaultSource = (): ResolvedPlugin => {
    const src = loadFile(p.join(root, 'hooks', 'hooks.json'));
    return { name, root, sources: src ? [src] : [], diagnostics };
  };
  if (manifestPath === undefined || manifestText === undefined) return defaultSource();

  const parsed = parseJsonLocated(manifestText);
  if (!parsed.ok) {
    const reason = `plugin manifest ${manifestPath} is not valid JSON (line ${parsed.line}, column ${parsed.column}: ${parsed.message})`;
    diagnostics.push({
      severity: 'warning',
      code: 'json_syntax',
      message: reason,
      file: manifestPath,
      line: parsed.line,
      column: parsed.column,
    });
    return { name, root, sources: [], diagnostics, skipReason: reason };
  }
  const manifest = parsed.value;
  const out = new DiagnosticCollector(manifestPath, parsed.locator);
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    out.warn('invalid_document', 'a plugin manifest must be a JSON object', []);
    return {
      name,
      root,
      sources: [],
      diagnostics: out.diagnostics,
      skipReason: `invalid plugin manifest ${manifestPath}`,
    };
  }
  const m = manifest as Record<string, unknown>;
  if (spec.name === undefined && typeof m['name'] === 'string' && m['name'] !== '') name = m['name'];
  const entry = m['hooks'];
  if (entry === undefined) {
    const r = defaultSource();
    r.diagnostics.push(...out.diagnostics);
    return r;
  }
  const manifestRel = relPath(root, manifestPath, p);
  const sources: PluginSource[] = [];
  const inline = (value: Record<string, unknown>, path: DocPath, suffix: string): void => {
    const inner = typeof value['hooks'] === 'object' && value['hooks'] !== null && !Array.isArray(value['hooks']);
    const collector = new DiagnosticCollector(manifestPath, parsed.locator);
    const events = normalizeHooksTable(
      inner ? value['hooks'] : value,
      { file: manifestPath ?? '', basePath: inner ? [...path, 'hooks'] : path },
      collector,
    );
    sources.push({
      keySource: `${name}:${manifestRel}${suffix}`,
      loaded: {
        file: manifestPath ?? '',
        kind: 'hooks.json',
        ok: true,
        events,
        definesHooks: events.length > 0,
        diagnostics: collector.diagnostics,
      },
    });
  };
  const one = (item: unknown, path: DocPath, suffix: string): void => {
    if (typeof item === 'string') {
      const r = resolveInside(root, item, p, fs);
      if ('error' in r) {
        out.warn('invalid_plugin_hooks', `${r.error}; entry ignored`, path);
        return;
      }
      const src = loadFile(r.abs);
      if (src) sources.push(src);
      else out.warn('missing_file', `hook file ${item} does not exist in the plugin`, path);
    } else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      inline(item as Record<string, unknown>, path, suffix);
    } else {
      out.warn(
        'invalid_plugin_hooks',
        'manifest `hooks` entries must be ./-prefixed paths or inline hooks objects; entry ignored',
        path,
      );
    }
  };
  if (Array.isArray(entry)) entry.forEach((item: unknown, i) => one(item, ['hooks', i], `#${i}`));
  else one(entry, ['hooks'], '');
  return { name, root, sources, diagnostics: out.diagnostics };
}
