// The zod-free reading of a requirements document (policy/shape.ts) against PolicyDocumentSchema: whenever it vouches
// for a document, the schema accepts it and builds the same value (keys in the same order, carried values the same).
import { describe, expect, it } from 'vitest';
import { readPolicyShape } from '../../src/policy/shape';
import { PolicyDocumentSchema, TomlFloat } from '../support/core';

// The value with its keys' order made visible (JSON keeps insertion order; classes named).
function layout(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(layout);
  if (v instanceof Date || v instanceof TomlFloat) return { class: v.constructor.name, value: String(v) };
  if (typeof v === 'object' && v !== null) return Object.entries(v).map(([k, x]) => [k, layout(x)]);
  return v;
}

const handler = { type: 'command', command: '/opt/h/check.sh' };
const documents: unknown[] = [
  {},
  { hooks: {} },
  { zz: 1, hooks: { managed_dir: '/opt/h', PreToolUse: [{ hooks: [handler], matcher: '^Bash$' }] } },
  {
    rules: { a: [1, 2, { b: new Date(0) }] },
    allow_managed_hooks_only: true,
    features: { other: 'x', hooks: true, zerocode_hooks: false },
    hooks: {
      Stop: [{ hooks: [{ statusMessage: 's', timeout: 30, command: 'true', type: 'command', async: true }] }],
      windows_managed_dir: 'C:\\h',
      managed_dir: '/opt/h',
      SessionStart: [
        {
          hooks: [
            { type: 'prompt', prompt: 'p' },
            { type: 'agent', additionalContextLimit: 5 },
          ],
        },
      ],
      PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'x', commandWindows: 'y' }] }],
    },
    mcp_servers: { s: { command: 'c', timeout: new TomlFloat(60) } },
  },
  { hooks: { Bogus: [] } },
  { features: {} },
  // Not vouched for: each is for the schema to judge (or to refuse).
  { hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } },
  { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: '  ' }] }] } },
  {
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', command_windows: 'a', commandWindows: 'b' }] }] },
  },
  { hooks: { PreToolUse: [{ hooks: [{ type: 'shell', command: 'x' }] }] } },
  { hooks: { PreToolUse: [{ hooks: [{ ...handler, extra: 1 }] }] } },
  { hooks: { PreToolUse: [{ hooks: [{ ...handler, timeout: '5' }] }] } },
  { hooks: { PreToolUse: [{ hooks: [{ ...handler, timeout: Number.POSITIVE_INFINITY }] }] } },
  { hooks: { PreToolUse: [{ hooks: [{ ...handler, async: 'yes' }] }] } },
  { hooks: { PreToolUse: [{ matcher: 3, hooks: [handler] }] } },
  { hooks: { PreToolUse: [{ hooks: [handler], other: 1 }] } },
  { hooks: { PreToolUse: [{}] } },
  { hooks: { PreToolUse: {} } },
  { hooks: { managed_dir: 7 } },
  { hooks: [] },
  { features: { hooks: 'yes' } },
  { features: [] },
  { allow_managed_hooks_only: 1 },
  JSON.parse('{"__proto__": {"x": 1}}'),
  JSON.parse('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "__proto__": 1}]}]}}'),
  [],
  null,
  'text',
];

describe('readPolicyShape', () => {
  it('vouches only for documents the schema accepts, and builds what the schema builds', () => {
    let vouched = 0;
    for (const doc of documents) {
      const fast = readPolicyShape(doc);
      const schema = PolicyDocumentSchema.safeParse(doc);
      if (fast === undefined) continue;
      vouched++;
      expect(schema.success, JSON.stringify(doc)).toBe(true);
      expect(layout(fast)).toEqual(layout(schema.data));
    }
    expect(vouched).toBe(6);
  });

  it('keeps carried values as they are (the schema passes them through unchanged)', () => {
    const date = new Date(0);
    const doc = { x: date, hooks: { PreToolUse: [{ hooks: [handler] }] } };
    const fast = readPolicyShape(doc)!;
    expect(fast['x']).toBe(date);
    expect(fast.hooks).not.toBe(doc.hooks);
  });
});
