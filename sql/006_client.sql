-- soak results database, migration 6: which client sent a run's requests.
-- curl (libcurl's multi interface), lean (the plain HTTP/1.1 driver on epoll and Node's
-- http-parser; `client = auto` takes it for plain http://) or tcp-frame.  NULL: a run
-- recorded before this column existed (libcurl sent every HTTP run then).
ALTER TABLE runs ADD COLUMN client TEXT;
