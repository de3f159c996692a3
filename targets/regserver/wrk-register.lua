-- POST /register with a username unique to each request, for wrk:
--   wrk -t1 -c50 -d10s -s targets/regserver/wrk-register.lua http://127.0.0.1:PORT
-- Add -H 'Connection: close' for one connection per request.  Every answer should be 201;
-- wrk prints "Non-2xx or 3xx responses" when some were not.
local counter = 0
local threads = 0

function setup(thread)
   thread:set("tid", threads)
   threads = threads + 1
end

function init(args)
   -- Time and thread number in the prefix: repeated runs against one server never collide.
   prefix = string.format("w%d_%d_", os.time(), tid or 0)
   wrk.method = "POST"
   wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
end

function request()
   counter = counter + 1
   local body = "username=" .. prefix .. counter .. "&email=u" .. counter ..
      "@example.test&password=secret123"
   return wrk.format(nil, "/register", nil, body)
end
