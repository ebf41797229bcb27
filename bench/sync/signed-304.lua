-- wrk script for bench/sync: every request carries its own pre-signed Signature-Input/Signature (a fresh nonce each)
-- and the one-poll header naming no shadow layer (Hookwarden-Shadow: none), as the agent sends them, formatted once in
-- init() so request() only hands out ready strings; with "plain" the same with the legacy bearer (the control: equal
-- Lua cost). Args: <lines file prefix> <If-None-Match> <Content-Digest or bearer token> ["plain"]. Thread n reads
-- <prefix>.<n>.
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local requests = {}
local idx = 0

function init(args)
  local etag, third = args[2], args[3]
  if args[4] == "plain" then
    requests[1] = wrk.format("GET", "/v1/agent/bundle", { ["Authorization"] = "Bearer " .. third, ["If-None-Match"] = etag })
    return
  end
  local f = assert(io.open(args[1] .. "." .. id, "r"))
  for line in f:lines() do
    local tab = line:find("\t", 1, true)
    requests[#requests + 1] = wrk.format("GET", "/v1/agent/bundle", {
      ["If-None-Match"] = etag,
      ["Content-Digest"] = third,
      ["Signature-Input"] = line:sub(1, tab - 1),
      ["Signature"] = line:sub(tab + 1),
      ["Hookwarden-Shadow"] = "none",
    })
  end
  f:close()
end

function request()
  idx = idx + 1
  if idx > #requests then idx = 1 end -- exhausted: replays (answered 401, counted as non-2xx/3xx)
  return requests[idx]
end
