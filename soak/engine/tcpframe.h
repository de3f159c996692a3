/*
 * tcpframe — the engine's driver for framed TCP protocols (frame.h), the way monitoring
 * agents talk to a monitor server.  See engine_int.h for the driver contract.
 *
 * One epoll loop per worker over plain non-blocking sockets, one state machine per VU:
 *
 *   connect -> [handshake: write, read one reply] -> frames: write the frames up to one
 *   that expects a reply (one send for the group), read that reply, ... -> iteration done
 *   -> think -> next iteration on the same connection (keepalive) or close and start over
 *   with connect (close).
 *
 * Figures: a request is an iteration (TPS = iterations per second).  Its latency (the
 * histogram) runs from the first byte of its frames written to the last frame written
 * (and its reply read, where one is expected); connect and handshake times are not in it:
 * connect_sum_us/connect_n hold connect times, ttfb_sum_us/ttfb_n hold handshake times
 * (handshake written until its reply read).  new_conns counts connections established;
 * bytes counts reply bytes received.
 *
 * Errors: connect_refused, connect_timeout, client_ports (EADDRNOTAVAIL, then a back-off),
 * reset (peer closed or reset, also in the middle of a reply), timeout (connect, handshake
 * and iteration each get the request timeout), protocol (a reply of another type than the
 * frame it answers, or longer than max_frame), body_mismatch (the handshake's reply does
 * not match expect), other.  A failed iteration closes its connection.
 *
 * Nothing is allocated per request: each VU's buffer is sized once from the templates'
 * tpl_max_len when it first starts; replies are read no further than their own end (so a
 * reply never swallows bytes of the next) and only their first 8 KB are kept, for expect.
 * Timeouts are exact without a timer structure: every deadline is `now + timeout`, so
 * a VU moved to the tail of one list whenever it gets a new deadline keeps the list sorted.
 */
#ifndef SOAK_TCPFRAME_H
#define SOAK_TCPFRAME_H

/* The driver is `tcpframe_driver` (engine_int.h); its preflight connects once to the
 * address (engine_preflight). */

#endif
