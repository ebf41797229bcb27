// `@hookwarden/hook-core/browser` is browser-safe: it bundles for the browser with no Node.js module anywhere in its
// imports, and the bundle runs in a bare JavaScript context (no require, process or Buffer).
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { canonicalJson as nodeCanonicalJson } from '../src/trust/canonical-json';

const ENTRY = path.resolve(__dirname, '../src/browser.ts');

describe('@hookwarden/hook-core/browser', () => {
  it('bundles for the browser without any Node.js module and runs without Node globals', async () => {
    const out = await build({
      entryPoints: [ENTRY],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'hookCore',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.filter((i) => i.startsWith('node:') || /(^|\/)node_modules\/@types\/node\//.test(i))).toEqual([]);
    const ownFiles = inputs.filter((i) => i.includes('libs/hook-core/src/')).map((i) => i.replace(/.*src\//, ''));
    expect(ownFiles.sort()).toEqual([
      'browser.ts',
      'inventory/schema.ts',
      'inventory/vocabulary.ts',
      'trust/canonical-json.ts',
      'types.ts',
    ]);
    const context: Record<string, unknown> = {};
    runInNewContext(`${out.outputFiles[0]!.text}\nthis.hookCore = hookCore;`, context);
    const core = context.hookCore as typeof import('../src/browser');
    expect(typeof (context as { require?: unknown }).require).toBe('undefined');
    const value = { b: [1, { d: undefined, c: 'x' }], a: 'é' };
    expect(core.canonicalJson(value)).toBe(nodeCanonicalJson(value));
    expect(core.INVENTORY_LAYERS).toContain('managed');
    expect(core.inventoryHookSchema.safeParse({}).success).toBe(false);
  });
});
