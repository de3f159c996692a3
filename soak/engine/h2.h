/*
 * h2 — the engine's lean HTTP/2 driver (`lean-h2`): h2 over TLS (ALPN) for https:// and h2c
 * with prior knowledge for http://, on nghttp2 (Debian's libnghttp2) and the connection core
 * (conn.h), TLS through tls.h; requests built by h2msg.h, judged and classed as the other
 * drivers do (httpclass.h).
 *
 * Streams, not connections, are the concurrency: the plan's `connections` (default one per
 * engine thread) are shared by the worker threads, and each slot (a user in the closed
 * model, a request in flight in the open model) sends on connection j mod (the worker's
 * connections), so the users spread evenly.  A connection opens when its first request
 * starts; requests wait for it (their time counts), and beyond the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS nghttp2 queues their HEADERS until a stream closes (that
 * wait counts too: it is the server's limit).  Latency runs from the request's start, in the
 * open model from its intended start, as for HTTP/1.1.
 *
 * GOAWAY: the connection takes no new streams; it is kept until its streams below the last
 * id the server will process are answered, while a fresh connection takes the new ones.
 * A stream the server refused (REFUSED_STREAM, or above the GOAWAY's last id: the server
 * never saw it) is sent once more on a fresh connection, as RFC 9113 allows, so a graceful
 * GOAWAY loses nothing.  RST_STREAM and GOAWAY frames are counted (istats h2_rst,
 * h2_goaway); a request they end is h2_rst_stream or h2_goaway, with the error code's name.
 *
 * Figures: as HTTP/1.1's, bytes counting an HTTP/1.1-style status line and header lines;
 * the first request that finishes on a new connection carries its connect and TLS times
 * (so new_conns counts connections); the server's SETTINGS_MAX_CONCURRENT_STREAMS goes to
 * run_env (engine_facts).
 *
 * Deadlines: the request's timeout covers the connection's opening (a request waiting for a
 * connection that does not come up fails connect_timeout or tls_timeout), its stream and the
 * answer; a request past it is cancelled with RST_STREAM(CANCEL) and its connection kept.
 */
#ifndef SOAK_H2_H
#define SOAK_H2_H

/* The driver is `h2_driver` (engine_int.h); its preflight is the libcurl driver's (one
 * connect to each request's host, 3 s at most). */

#endif
