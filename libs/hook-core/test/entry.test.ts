// The package entry lists what other packages use, and nothing more: every name it exports is imported by the API,
// the agent, the CLI, the console, the cross-package tests or the benches (hook-core's own tests read src directly).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');
const SOURCE = /\.(ts|tsx|mts|mjs|cjs|js)$/;

// Source files below `dir` (no dependencies, no build output).
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) return [];
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : SOURCE.test(e.name) ? [p] : [];
  });
}

// The names an entry file exports (`export { a, type B as C } from …`, and through `export * from './dir'`).
function exportedNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const listed = [...text.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, ''))
      .filter(Boolean)
      .map((n) => n.split(/\s+as\s+/).pop()!),
  );
  const starred = [...text.matchAll(/export\s*\*\s*from\s*'(\.[^']*)'/g)].flatMap((m) =>
    exportedNames(path.join(path.dirname(file), m[1]!, 'index.ts')),
  );
  return [...listed, ...starred];
}

describe('package entry', () => {
  it('exports only names another package uses', () => {
    const consumers = ['apps', 'test', 'bench', 'scripts']
      .flatMap((d) => sources(path.join(ROOT, d)))
      .map((f) => readFileSync(f, 'utf8'))
      .filter((t) => /@hookwarden\/hook-core['/]|hook-core\/dist\/index\.js/.test(t))
      .join('\n');
    const names = exportedNames(path.join(ROOT, 'libs/hook-core/src/index.ts'));
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((n) => !new RegExp(`\\b${n}\\b`).test(consumers))).toEqual([]);
  });

  it('declares its subpaths in the exports map', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'libs/hook-core/package.json'), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './cli', './browser', './http', './transport', './package.json']);
    expect(exportedNames(path.join(ROOT, 'libs/hook-core/src/browser.ts'))).toContain('canonicalJson');
  });
});
