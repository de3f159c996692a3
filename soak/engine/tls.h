/*
 * tls — TLS on the engine's own sockets (lean.c), with Debian's OpenSSL 3: a worker's
 * client context made from a plan's [tls] options, and per connection a non-blocking
 * handshake, reads and writes, sessions kept for resumption and, when something fails,
 * what it was (a certificate not trusted, an alert from the server, a plain server...).
 *
 *   tls_client_init  a worker's SSL_CTX: verification (on unless insecure; the system's
 *                    CAs or ca_file/ca_dir), client certificate, versions, ciphers, ALPN,
 *                    resumption (tickets and session ids) or none
 *   tls_conn_begin   a connection's TLS over an open socket (the slot's SSL object is
 *                    made once and cleared between its connections: no SSL_new per
 *                    connection), the target's last session offered for resumption
 *   tls_handshake, tls_read, tls_write, tls_conn_end
 *
 * Sockets: the SSL object reads and writes the socket through a BIO of our own, which
 * sends with MSG_NOSIGNAL (a closed peer is an error, not SIGPIPE) and notes when a recv
 * got less than it asked for: then the socket is drained and, with edge-triggered epoll,
 * the next bytes bring a new event (tls_drained), which saves the recv that would only
 * say EAGAIN.  The record layer reads ahead, so a response that arrived whole costs one
 * recv, as in plain HTTP.
 *
 * Sessions: the newest session the server gave a slot's connection (a TLS 1.3 ticket
 * arrives after the handshake, with the first answer) is kept by the slot and by the
 * target (struct tls_resume); a new connection offers the slot's, else the target's, while
 * OpenSSL still takes it for resumable (it uses a TLS 1.3 ticket once), as wrk and libcurl
 * keep one per connection.  A session is only ever offered to the target (scheme, host,
 * port) that gave it: a slot that moves to another target leaves its own behind.
 *
 * Memory: per connection the SSL object and OpenSSL's record buffers (about 17 KB to read,
 * a record's worth from the server, and 4.5 KB to write, TLS_SEND_FRAGMENT), kept between
 * requests: soak allocates nothing per request on a kept connection (OpenSSL 3.0's record
 * layer itself takes and frees a few 40-byte blocks per record, as in wrk).  A handshake
 * allocates inside OpenSSL, as every TLS client's does.
 *
 * Errors: OpenSSL's error queue is per thread; every failure drains it into the message
 * (tls_failure), so the next connection's calls start clean.
 *
 * Threads: a tls_client, its tls_resume and tls_conn belong to one worker.
 */
#ifndef SOAK_TLS_H
#define SOAK_TLS_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "httpclass.h"
#include "plan.h"

/* A worker's client context. */
struct tls_client {
	SSL_CTX *ctx;             /* configured from the plan's [tls] */
	BIO_METHOD *bm;           /* our socket BIO's methods */
	const struct plan_tls *o; /* those options */
};

/* The newest session a target's connections got (NULL: none yet, or resumption off). */
struct tls_resume {
	SSL_SESSION *sess; /* owned */
};

/* One slot's TLS, kept across its connections. */
struct tls_conn {
	SSL *ssl;                  /* made on the first connection, cleared between them */
	BIO *bio;                  /* our socket BIO (owned by ssl) */
	int fd;                    /* the socket it reads and writes */
	int os_errno;              /* errno of the last send or recv that failed */
	uint8_t drained;           /* the last recv got less than it asked: socket empty */
	uint8_t up;                /* the handshake completed on this connection */
	uint8_t cut;               /* the peer closed inside a record (tls_failure says so) */
	struct tls_resume *resume; /* where the server's sessions go, or NULL */
	SSL_SESSION *own;          /* the newest session of this slot's connections */
};

/* tls_read / tls_write / tls_handshake outcomes below 0. */
enum {
	TLS_AGAIN = -1, /* wait for the socket (either direction: edge-triggered in and out) */
	TLS_FAILED = -2 /* tls_failure says what */
};

#define TLS_SEND_FRAGMENT 4096 /* the largest TLS record we write (its buffer's size) */

/* The ALPN list a driver offers when [tls] alpn is not given. */
#define TLS_ALPN_H1 "http/1.1"

/* Builds c from o; alpn_default is offered when o->alpn is NULL.  0, or -1 with err and
 * *key (may be NULL) naming the [tls] key at fault ("ca_file", "cert", "ciphers", ...). */
int tls_client_init(struct tls_client *c, const struct plan_tls *o, const char *alpn_default,
                    char *err, size_t errlen, const char **key);
/* c zeroed, or built: frees it (a zeroed one is a no-op). */
void tls_client_release(struct tls_client *c);
void tls_resume_release(struct tls_resume *r);

/* Starts the TLS of a connection on socket fd to `host` (the URL's host: SNI when it is
 * a name, and what the certificate must match; o->sni overrides both), offering r's
 * session (r NULL: none kept).  0, or -1 out of memory. */
int tls_conn_begin(struct tls_conn *t, struct tls_client *c, int fd, const char *host,
                   struct tls_resume *r);
/* One step of the handshake: 0 when it is complete, TLS_AGAIN or TLS_FAILED. */
int tls_handshake(struct tls_conn *t);
/* Up to n bytes of application data: > 0 bytes, 0 the peer closed (close_notify, or an
 * EOF without it: the HTTP parser judges whether the answer was complete), TLS_AGAIN or
 * TLS_FAILED. */
ssize_t tls_read(struct tls_conn *t, char *buf, size_t n);
/* Writes buf whole (one record for small requests): n, TLS_AGAIN (call again with the
 * same bytes, which may have moved) or TLS_FAILED. */
ssize_t tls_write(struct tls_conn *t, const char *buf, size_t n);
/* After a read: 1 when neither OpenSSL nor the socket has more bytes now. */
int tls_drained(const struct tls_conn *t);
/* 1 when OpenSSL holds bytes already read from the socket (the handshake's last read may
 * have taken the server's first records: no new epoll edge will say so). */
int tls_pending(const struct tls_conn *t);
/* The connection ends: a close_notify when the session is up (best effort, one send). */
void tls_conn_end(struct tls_conn *t);
void tls_conn_release(struct tls_conn *t);

/* Whether the completed handshake resumed a session. */
int tls_resumed(const struct tls_conn *t);
/* "TLSv1.3 TLS_AES_256_GCM_SHA384 h2": a connection's version, cipher and the protocol ALPN
 * chose ("-" when none), for run_env (also of libcurl's connections). */
void tls_describe(const SSL *ssl, char *buf, size_t len);
/* The protocol ALPN chose, "" when none (points into OpenSSL's memory; len set). */
const char *tls_alpn(const struct tls_conn *t, unsigned *len);

/* What the last TLS_FAILED was: its class as an http_fail (HTTP_FAIL_TLS_CERT, _ALERT,
 * HTTP_FAIL_IO with *os_errno, HTTP_FAIL_PROTOCOL, HTTP_FAIL_OTHER for our own side) and
 * words for it in msg; drains OpenSSL's error queue. */
enum http_fail tls_failure(struct tls_conn *t, int *os_errno, char *msg, size_t len);

/* "1.2" / "1.3" -> PLAN_TLS_*, or 0. */
int tls_version_parse(const char *s);

#endif
