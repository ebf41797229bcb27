// Policy fixtures for API tests: a valid requirements.toml and helpers that author through the real API.
import { call } from './http';

export const VALID_TOML = `allow_managed_hooks_only = true

[features]
hooks = true

[hooks]
managed_dir = "/opt/hookwarden/hooks"
windows_managed_dir = 'C:\\enterprise\\hooks'

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 /opt/hookwarden/hooks/pre_tool_use.py"
timeout = 30
statusMessage = "Checking Bash command"
`;

export const SCRIPT = { path: 'pre_tool_use.py', content: '#!/usr/bin/env python3\nprint("ok")\n', mode: 0o755 };

// Creates a policy (in the default group unless given) and returns its id.
export async function createPolicy(baseUrl: string, token: string, name: string, groupId?: string): Promise<string> {
  const res = await call(baseUrl, 'POST', '/v1/policies', { token, body: { name, ...(groupId ? { groupId } : {}) } });
  if (res.status !== 201) throw new Error(`create policy: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}
