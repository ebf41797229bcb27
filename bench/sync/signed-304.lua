-- wrk script for bench/sync: every request carries its own pre-signed Signature-Input/Signature (a fresh nonce each,
-- as the agent sends them); with PLAIN=1 the same request building with a bearer instead (the control: equal Lua cost).
-- Args: <lines file prefix> <If-None-Match> <Content-Digest or bearer token>. Thread n reads <prefix>.<n>.
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local lines = {}
local idx = 0
local etag, third, plain

function init(args)
  etag = args[2]
  third = args[3]
  plain = args[4] == "plain"
  if plain then return end
  local f = assert(io.open(args[1] .. "." .. id, "r"))
  for line in f:lines() do lines[#lines + 1] = line end
  f:close()
end

function request()
  if plain then
    return wrk.format("GET", "/v1/agent/bundle", { ["Authorization"] = "Bearer " .. third, ["If-None-Match"] = etag })
  end
  idx = idx + 1
  if idx > #lines then idx = 1 end -- exhausted: replays (answered 401, counted as non-2xx/3xx)
  local line = lines[idx]
  local tab = line:find("\t", 1, true)
  return wrk.format("GET", "/v1/agent/bundle", {
    ["If-None-Match"] = etag,
    ["Content-Digest"] = third,
    ["Signature-Input"] = line:sub(1, tab - 1),
    ["Signature"] = line:sub(tab + 1),
  })
end
