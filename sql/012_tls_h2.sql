-- soak results database: TLS handshakes apart from the requests (https:// runs), and HTTP/2
-- frames.  A request's latency includes the handshake its connection made; these columns
-- hold the handshakes alone (from the TCP connection up to the handshake complete), so connect,
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
-- HTTP/2 (http_version = 2): the frames that end streams or connections, counted as they
-- arrive (the requests they fail are in interval_errors as h2_rst_stream and h2_goaway;
-- a stream refused by a graceful GOAWAY is sent again and is no error).  NULL for
-- HTTP/1.1 runs.
ALTER TABLE intervals ADD COLUMN h2_rst INTEGER;    -- RST_STREAM frames received
ALTER TABLE intervals ADD COLUMN h2_goaway INTEGER; -- GOAWAY frames received
ALTER TABLE steps ADD COLUMN h2_rst INTEGER;
ALTER TABLE steps ADD COLUMN h2_goaway INTEGER;
