-- soak results database: TLS handshakes apart from the requests (https:// runs).  A
-- request's latency includes the handshake its connection made; these columns hold the
-- handshakes alone (from the TCP connection up to the handshake complete), so connect,
-- TLS and first byte read apart.  NULL for runs without https:// requests (and for rows
-- written before this migration).
ALTER TABLE intervals ADD COLUMN tls_full INTEGER;    -- full handshakes completed
ALTER TABLE intervals ADD COLUMN tls_resumed INTEGER; -- handshakes that resumed a session
ALTER TABLE intervals ADD COLUMN tls_mean_us REAL;    -- mean handshake time, both kinds
ALTER TABLE intervals ADD COLUMN tls_p50_us INTEGER;
ALTER TABLE intervals ADD COLUMN tls_p99_us INTEGER;
ALTER TABLE intervals ADD COLUMN tls_hist BLOB;       -- handshake-time histogram (µs)
ALTER TABLE steps ADD COLUMN tls_full INTEGER;
ALTER TABLE steps ADD COLUMN tls_resumed INTEGER;
ALTER TABLE steps ADD COLUMN tls_mean_us REAL;
ALTER TABLE steps ADD COLUMN tls_p50_us INTEGER;
ALTER TABLE steps ADD COLUMN tls_p99_us INTEGER;
ALTER TABLE steps ADD COLUMN tls_hist BLOB;
