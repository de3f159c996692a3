-- wrk script: POST unique registrations to the soak servlet and count the answers.
--   wrk -t1 -c20 -d10s -s targets/servlet/wrk-register.lua http://127.0.0.1:PORT/register
-- Usernames are a per-run random prefix, the thread number and a counter, so repeated
-- runs against the same database never collide. Prints the 201 count and any other status.
local threads = {}
local run = string.format("w%x%04x", os.time() % 0x1000000, math.random(0, 0xffff))

function setup(thread)
  thread:set("tid", #threads + 1)
  thread:set("run", run)
  table.insert(threads, thread)
end

local counter = 0
created = 0
other = 0
local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }

function request()
  counter = counter + 1
  local body = string.format("username=%s_%d_%d&email=u%d%%40example.test&password=password-%d",
                             run, tid, counter, counter, counter)
  return wrk.format("POST", nil, headers, body)
end

function response(status, hdrs, body)
  if status == 201 then created = created + 1 else other = other + 1 end
end

function done(summary, latency, requests)
  local c, o = 0, 0
  for _, t in ipairs(threads) do
    c = c + t:get("created")
    o = o + t:get("other")
  end
  local secs = summary.duration / 1e6
  io.write(string.format("created=%d other=%d created_per_s=%.0f p50_ms=%.1f p99_ms=%.1f\n",
                         c, o, c / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
