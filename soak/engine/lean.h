/*
 * lean — the engine's lean HTTP/1.1 driver: http:// and https:// on non-blocking sockets in
 * the worker's epoll loop, with h1.c building requests and parsing answers (Node's
 * http-parser) and tls.c for TLS (OpenSSL) — wrk's cost per request behind the same driver
 * contract as the libcurl driver (engine_int.h), and the same figures and error classes
 * (httpclass.h).
 *
 * What it sends is what libcurl would send for the plan (h1.h), with the same timeout
 * (connect, send and answer together), `Connection: close` in close mode, connections
 * kept between requests otherwise and counted when opened.  What it cannot do is listed by
 * h1_plan_supported(): user:password in a URL, a placeholder in a URL's host or port, a
 * Transfer-Encoding header of the plan's own (libcurl would chunk the body).  The
 * scenario format has no key for HTTP/2, proxies, redirects, cookies or authentication
 * schemes today; the libcurl driver sets HTTP/1.1, no proxy, no redirects and no cookie
 * engine, so both clients send the same.  `client = auto` takes this driver whenever
 * h1_plan_supported() says it can (engine_client()).
 *
 * Figures: service time from the request's start (connect and TLS handshake included) to
 * the answer's last byte; time to first byte from the start; the handshake's own time
 * (connection up to handshake done), full or resumed; bytes are header bytes (interim
 * answers included) plus the body after de-chunking, as libcurl counts them.
 */
#ifndef SOAK_LEAN_H
#define SOAK_LEAN_H

/* The driver is `lean_driver` (engine_int.h); its preflight is the libcurl driver's (one
 * connect to each request's host, 3 s at most). */

#endif
