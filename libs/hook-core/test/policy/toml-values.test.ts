// Non-hook sections come back unchanged from the canonical rendering: floats stay floats, integers integers, dates dates.
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { findTomlComment, parsePolicyToml, renderPolicyToml } from '../support/core';

// Parses with integers as bigint, so a float and an integer of the same value differ.
const typed = (text: string): unknown => parse(text, { integersAsBigInt: true });
const canonical = (text: string): string => {
  const r = parsePolicyToml(text);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return renderPolicyToml(r.policy);
};

const CARRIED = `
tool_timeout_sec = 60.0
ratio = 1.0
big = 1e3
neg_zero = -0.0
count = 60
frac = 0.25
inf_f = inf
nan_f = nan
born = 1979-05-27T07:32:00Z
offset = 1979-05-27T00:32:00-07:00
local_dt = 1979-05-27T07:32:00
day = 1979-05-27
at = 07:32:00

[rules]
weights = [1.0, 2, -0.0, 2.5e3]
nested = { t = 30.0, n = 30 }

[mcp_servers.docs]
command = "npx"
tool_timeout_sec = 60.0
startup_timeout_sec = 10

[permissions.network]
retries = [[1.0, 2], [3]]

[[profiles]]
timeout = 5.0

[hooks]
managed_dir = "/opt/hw/hooks"
`;

describe('canonical rendering keeps every non-hook value and type', () => {
  it('floats stay floats (60.0, 1.0, 1e3, -0.0), integers stay integers, dates and times stay dates and times', () => {
    const out = canonical(CARRIED);
    const before = typed(CARRIED) as Record<string, any>;
    const after = typed(out) as Record<string, any>;
    expect(after).toEqual(before);
    expect(Object.is(after['neg_zero'], -0)).toBe(true);
    expect(Object.is(after['rules'].weights[2], -0)).toBe(true);
    expect(typeof after['tool_timeout_sec']).toBe('number');
    expect(typeof after['count']).toBe('bigint');
    expect(typeof after['mcp_servers'].docs.startup_timeout_sec).toBe('bigint');
    expect(typeof after['mcp_servers'].docs.tool_timeout_sec).toBe('number');
    expect(out).toMatch(/^tool_timeout_sec = 60\.0$/m);
    expect(out).toMatch(/^neg_zero = -0\.0$/m);
    expect(out).toMatch(/^big = 1000\.0$/m);
    expect((after['day'] as { isDate(): boolean }).isDate()).toBe(true);
    expect((after['at'] as { isTime(): boolean }).isTime()).toBe(true);
    expect((after['local_dt'] as { isLocal(): boolean }).isLocal()).toBe(true);
    expect(String(after['offset'])).toBe(String(before['offset']));
    // Rendering is idempotent.
    expect(canonical(out)).toBe(out);
  });

  it('a string that looks like the float placeholder stays a string', () => {
    const text = 'a = "__hw_float_0000000000000000_0__"\nb = 1.0\n';
    expect(typed(canonical(text))).toEqual(typed(text));
  });

  it('the JSON view carries floats as numbers', () => {
    const r = parsePolicyToml('x = 60.0\n');
    if (!r.ok) throw new Error('parse');
    expect(JSON.parse(JSON.stringify(r.policy))).toEqual({ x: 60 });
  });
});

describe('findTomlComment', () => {
  it.each([
    ['a = 1 # c\n', { line: 1, column: 7 }],
    ['# top\na = 1\n', { line: 1, column: 1 }],
    ['a = "x # not"\nb = 2 # yes\n', { line: 2, column: 7 }],
    ["a = 'x # not'\n", null],
    ['a = """\n# not\n"""\n#yes', { line: 4, column: 1 }],
    ["a = '''\n# not\n'''\n", null],
    ['a = "esc \\" # not"\n', null],
    ['a = """ends with quotes"""""\n#c', { line: 2, column: 1 }],
    ['a = 1\n', null],
  ])('%j → %j', (text, where) => {
    expect(findTomlComment(text)).toEqual(where);
  });
});
