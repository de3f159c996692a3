/*
 * TLS on the engine's own sockets (tls.h).
 */
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* --- our socket BIO ------------------------------------------------------------------------ */

static int bio_write(BIO *b, const char *buf, int n)
{
	struct tls_conn *t = BIO_get_data(b);
	ssize_t w;

	BIO_clear_retry_flags(b);
	do
		w = send(t->fd, buf, (size_t)n, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w >= 0)
		return (int)w;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		BIO_set_retry_write(b);
	else
		t->os_errno = errno;
	return -1;
}

static int bio_read(BIO *b, char *buf, int n)
{
	struct tls_conn *t = BIO_get_data(b);
	ssize_t r;

	BIO_clear_retry_flags(b);
	do
		r = recv(t->fd, buf, (size_t)n, 0);
	while (r < 0 && errno == EINTR);
	t->drained = r < n;
	if (r >= 0)
		return (int)r;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		BIO_set_retry_read(b);
	else
		t->os_errno = errno;
	return -1;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b;
	(void)num;
	(void)ptr;
	return cmd == BIO_CTRL_FLUSH; /* writes go straight to the socket */
}

static int bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

/* --- the client context ------------------------------------------------------------------- */

/* OpenSSL has a new session (a TLS 1.3 ticket comes after the handshake): it replaces the
 * slot's own and the target's.  1: we keep the reference. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct tls_conn *t = SSL_get_app_data(ssl);

	if (!t || !t->resume || !SSL_SESSION_up_ref(sess))
		return 0;
	SSL_SESSION_free(t->own);
	t->own = sess;
	SSL_SESSION_free(t->resume->sess);
	t->resume->sess = sess;
	return 1;
}

/* The session a new connection offers: the slot's own, else the target's newest, while
 * resumable.  OpenSSL uses a TLS 1.3 ticket once (it marks a session not resumable when
 * a handshake resumed it, as RFC 8446 advises), and every connection brings new ones. */
static SSL_SESSION *session_to_offer(const struct tls_conn *t)
{
	if (!t->resume)
		return NULL;
	if (t->own && SSL_SESSION_is_resumable(t->own))
		return t->own;
	if (t->resume->sess && SSL_SESSION_is_resumable(t->resume->sess))
		return t->resume->sess;
	return NULL;
}

int tls_version_parse(const char *s)
{
	return !strcmp(s, "1.2") ? PLAN_TLS_1_2 : !strcmp(s, "1.3") ? PLAN_TLS_1_3 : 0;
}

/* "h2,http/1.1" in ALPN's wire format (length-prefixed names); -1 for an empty name or one
 * longer than 255 bytes, or no room. */
static int alpn_wire(const char *list, unsigned char *out, size_t cap, size_t *len)
{
	size_t n = 0;

	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		const char *name = p;
		while (l && *name == ' ')
			name++, l--;
		while (l && name[l - 1] == ' ')
			l--;
		if (l == 0 || l > 255 || n + 1 + l > cap)
			return -1;
		out[n++] = (unsigned char)l;
		memcpy(out + n, name, l);
		n += l;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	*len = n;
	return 0;
}

/* OpenSSL's reason for the newest error queued, and the queue emptied. */
static const char *ssl_reason(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	snprintf(buf, len, "%s", r ? r : "unknown OpenSSL error");
	ERR_clear_error();
	return buf;
}

/* Verification, client certificate, versions, ciphers: -1 with err and *key. */
static int ctx_options(SSL_CTX *ctx, const struct plan_tls *o, char *err, size_t errlen,
                       const char **key)
{
	char why[256];

#define REFUSE(k, ...)                                                                             \
	do {                                                                                       \
		*key = k;                                                                          \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)
	if (o->min_version && !SSL_CTX_set_min_proto_version(ctx, o->min_version))
		REFUSE("min_version", "min_version: %s", ssl_reason(why, sizeof why));
	if (o->max_version && !SSL_CTX_set_max_proto_version(ctx, o->max_version))
		REFUSE("max_version", "max_version: %s", ssl_reason(why, sizeof why));
	if (o->ciphers && !SSL_CTX_set_cipher_list(ctx, o->ciphers))
		REFUSE("ciphers", "ciphers: no cipher OpenSSL knows in '%s' (%s)", o->ciphers,
		       ssl_reason(why, sizeof why));
	if (o->ciphersuites && !SSL_CTX_set_ciphersuites(ctx, o->ciphersuites))
		REFUSE("ciphersuites", "ciphersuites: OpenSSL does not take '%s' (%s)",
		       o->ciphersuites, ssl_reason(why, sizeof why));
	if (o->insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	} else {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (o->ca_file || o->ca_dir) {
			if (!SSL_CTX_load_verify_locations(ctx, o->ca_file, o->ca_dir))
				REFUSE(o->ca_file ? "ca_file" : "ca_dir",
				       "%s: cannot load CA certificates from '%s': %s",
				       o->ca_file ? "ca_file" : "ca_dir",
				       o->ca_file ? o->ca_file : o->ca_dir,
				       ssl_reason(why, sizeof why));
		} else if (!SSL_CTX_set_default_verify_paths(ctx)) {
			REFUSE("ca_file", "cannot load the system's CA certificates: %s",
			       ssl_reason(why, sizeof why));
		}
	}
	if (o->cert) {
		const char *k = o->key ? o->key : o->cert;
		if (!SSL_CTX_use_certificate_chain_file(ctx, o->cert))
			REFUSE("cert", "cert: cannot load a PEM certificate from '%s': %s", o->cert,
			       ssl_reason(why, sizeof why));
		if (!SSL_CTX_use_PrivateKey_file(ctx, k, SSL_FILETYPE_PEM) &&
		    ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH)
			REFUSE("key", "key: cannot load a PEM private key from '%s': %s", k,
			       ssl_reason(why, sizeof why));
		if (!SSL_CTX_check_private_key(ctx))
			REFUSE("key", "key: '%s' does not belong to the certificate in '%s'", k,
			       o->cert);
	}
#undef REFUSE
	return 0;
}

int tls_client_init(struct tls_client *c, const struct plan_tls *o, const char *alpn_default,
                    char *err, size_t errlen, const char **key)
{
	const char *alpn = o->alpn ? o->alpn : alpn_default;
	unsigned char wire[256];
	size_t wlen = 0;
	const char *k = NULL;

	memset(c, 0, sizeof *c);
	c->o = o;
	c->ctx = SSL_CTX_new(TLS_client_method());
	c->bm = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "soak socket");
	if (!c->ctx || !c->bm || !BIO_meth_set_write(c->bm, bio_write) ||
	    !BIO_meth_set_read(c->bm, bio_read) || !BIO_meth_set_ctrl(c->bm, bio_ctrl) ||
	    !BIO_meth_set_create(c->bm, bio_create)) {
		snprintf(err, errlen, "cannot set up TLS: out of memory");
		goto fail;
	}
	/* A write that waits is called again with the same bytes, which may have moved to
	 * the slot's own buffer; reads take what the socket has, not one record at a time. */
	SSL_CTX_set_mode(c->ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_AUTO_RETRY);
	SSL_CTX_set_read_ahead(c->ctx, 1);
	/* Requests are small: records of at most 4 KB keep each connection's write buffer at
	 * 4.5 KB instead of 17 (a larger body goes out in several records). */
	SSL_CTX_set_max_send_fragment(c->ctx, TLS_SEND_FRAGMENT);
	if (ctx_options(c->ctx, o, err, errlen, &k) < 0)
		goto fail;
	if (alpn && *alpn &&
	    (alpn_wire(alpn, wire, sizeof wire, &wlen) < 0 ||
	     SSL_CTX_set_alpn_protos(c->ctx, wire, (unsigned)wlen) != 0)) {
		k = "alpn";
		snprintf(err, errlen, "alpn: '%s' is not a list of protocol names (h2,http/1.1)",
		         alpn);
		goto fail;
	}
	if (o->no_resume) {
		SSL_CTX_set_options(c->ctx, SSL_OP_NO_TICKET);
		SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_OFF);
	} else {
		SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_CLIENT |
		                                           SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(c->ctx, on_new_session);
	}
	return 0;
fail:
	if (key)
		*key = k;
	ERR_clear_error();
	tls_client_release(c);
	return -1;
}

void tls_client_release(struct tls_client *c)
{
	SSL_CTX_free(c->ctx);
	BIO_meth_free(c->bm);
	memset(c, 0, sizeof *c);
}

void tls_resume_release(struct tls_resume *r)
{
	SSL_SESSION_free(r->sess);
	r->sess = NULL;
}

/* --- a connection ------------------------------------------------------------------------- */

static int is_ip(const char *s)
{
	unsigned char a[16];
	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/* SNI and the name the certificate must carry. */
static int set_names(struct tls_conn *t, const struct plan_tls *o, const char *host)
{
	const char *name = o->sni && *o->sni ? o->sni : host;
	X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
	int ip = is_ip(name);

	if (!(o->sni && !*o->sni) && !ip && !SSL_set_tlsext_host_name(t->ssl, name))
		return -1;
	if (o->insecure)
		return 0;
	/* Cleared first: the slot's last connection may have gone to another target. */
	SSL_set1_host(t->ssl, NULL);
	X509_VERIFY_PARAM_set1_ip(vp, NULL, 0);
	return ip ? (X509_VERIFY_PARAM_set1_ip_asc(vp, name) ? 0 : -1)
	          : (SSL_set1_host(t->ssl, name) ? 0 : -1);
}

/* The last connection is over, however it ended.  Without this, SSL_clear (and SSL_free)
 * would take a connection that sent no close_notify for a bad one and mark its session
 * not resumable: the session shared by every connection to the target, which then would
 * all make full handshakes until the next ticket. */
static void forget(struct tls_conn *t)
{
	SSL_set_shutdown(t->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
}

int tls_conn_begin(struct tls_conn *t, struct tls_client *c, int fd, const char *host,
                   struct tls_resume *r)
{
	if (t->ssl)
		forget(t);
	if (t->ssl && !SSL_clear(t->ssl)) {
		SSL_free(t->ssl); /* frees the BIO too */
		t->ssl = NULL;
	}
	if (!t->ssl) {
		if (!(t->ssl = SSL_new(c->ctx)) || !(t->bio = BIO_new(c->bm))) {
			SSL_free(t->ssl);
			t->ssl = NULL;
			ERR_clear_error();
			return -1;
		}
		BIO_set_data(t->bio, t);
		SSL_set_bio(t->ssl, t->bio, t->bio);
		SSL_set_app_data(t->ssl, t);
	}
	t->fd = fd;
	t->os_errno = 0;
	t->drained = 0;
	t->up = 0;
	t->cut = 0;
	/* A session is its server's: when the slot's connection goes to another target, the
	 * slot's own session stays behind (offered to another host, it would be resumed by
	 * one that shares ticket keys without its certificate ever being checked). */
	if (t->resume != (c->o->no_resume ? NULL : r)) {
		SSL_SESSION_free(t->own);
		t->own = NULL;
	}
	t->resume = c->o->no_resume ? NULL : r;
	/* SSL_clear keeps the last connection's session (after a close_notify): the target's,
	 * or none at all when resumption is off, is set in its place. */
	if (set_names(t, c->o, host) < 0 || !SSL_set_session(t->ssl, session_to_offer(t))) {
		ERR_clear_error();
		return -1;
	}
	SSL_set_connect_state(t->ssl);
	return 0;
}

/* SSL_get_error's verdict on a call that returned r: TLS_AGAIN or TLS_FAILED. */
static int wait_or_fail(struct tls_conn *t, int r)
{
	int e = SSL_get_error(t->ssl, r);
	return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? TLS_AGAIN : TLS_FAILED;
}

int tls_handshake(struct tls_conn *t)
{
	int r = SSL_do_handshake(t->ssl);

	if (r == 1) {
		t->up = 1;
		return 0;
	}
	return wait_or_fail(t, r);
}

/* A failed read met the end of the stream, not an error. */
static int eof(const struct tls_conn *t)
{
	unsigned long e = ERR_peek_last_error();
	return e ? ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING : t->os_errno == 0;
}

ssize_t tls_read(struct tls_conn *t, char *buf, size_t n)
{
	int r = SSL_read(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);

	if (r > 0)
		return r;
	switch (SSL_get_error(t->ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return TLS_AGAIN;
	case SSL_ERROR_ZERO_RETURN:
		return 0; /* close_notify */
	case SSL_ERROR_SSL:
	case SSL_ERROR_SYSCALL:
		if (!eof(t))
			return TLS_FAILED;
		/* A close without close_notify: between records the parser decides whether the
		 * answer was whole (a body that runs to the close) or cut short; inside one,
		 * bytes were lost. */
		if (SSL_has_pending(t->ssl)) {
			t->cut = 1;
			return TLS_FAILED;
		}
		ERR_clear_error();
		return 0;
	default:
		return TLS_FAILED;
	}
}

ssize_t tls_write(struct tls_conn *t, const char *buf, size_t n)
{
	int r = SSL_write(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
	return r > 0 ? r : wait_or_fail(t, r);
}

int tls_drained(const struct tls_conn *t)
{
	return t->drained && !SSL_has_pending(t->ssl);
}

int tls_pending(const struct tls_conn *t)
{
	return SSL_has_pending(t->ssl);
}

void tls_conn_end(struct tls_conn *t)
{
	if (t->ssl && t->up) {
		SSL_shutdown(t->ssl); /* one close_notify; no wait for the peer's */
		ERR_clear_error();
	}
	t->up = 0;
}

void tls_conn_release(struct tls_conn *t)
{
	if (t->ssl)
		forget(t);
	SSL_free(t->ssl);
	SSL_SESSION_free(t->own);
	t->own = NULL;
	t->ssl = NULL;
	t->bio = NULL;
}

int tls_resumed(const struct tls_conn *t)
{
	return t->ssl && SSL_session_reused(t->ssl);
}

const char *tls_alpn(const struct tls_conn *t, unsigned *len)
{
	const unsigned char *p = NULL;

	*len = 0;
	if (t->ssl)
		SSL_get0_alpn_selected(t->ssl, &p, len);
	return p ? (const char *)p : "";
}

void tls_describe(const SSL *ssl, char *buf, size_t len)
{
	const unsigned char *a = NULL;
	unsigned n = 0;

	SSL_get0_alpn_selected(ssl, &a, &n);
	snprintf(buf, len, "%s %s %.*s", SSL_get_version(ssl), SSL_get_cipher_name(ssl),
	         n ? (int)n : 1, n ? (const char *)a : "-");
}

/* --- what went wrong ---------------------------------------------------------------------- */

/* Reasons that mean the bytes were not TLS at all (a plain server on the port). */
static int not_tls(int reason)
{
	return reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG ||
	       reason == SSL_R_HTTP_REQUEST || reason == SSL_R_UNKNOWN_PROTOCOL ||
	       reason == SSL_R_RECORD_LENGTH_MISMATCH;
}

enum http_fail tls_failure(struct tls_conn *t, int *os_errno, char *msg, size_t len)
{
	unsigned long e = ERR_peek_last_error();
	int reason = e ? ERR_GET_REASON(e) : 0;
	const char *words = e ? ERR_reason_error_string(e) : NULL;
	long v = t->ssl ? SSL_get_verify_result(t->ssl) : X509_V_OK;
	const char *during = t->up ? "" : " in the handshake";
	enum http_fail f = HTTP_FAIL_PROTOCOL;

	ERR_clear_error();
	*os_errno = t->os_errno;
	if (t->cut) {
		t->cut = 0;
		snprintf(msg, len,
		         "TLS: the server closed the connection in the middle of a record");
		return HTTP_FAIL_CLOSED;
	}
	if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
		snprintf(msg, len,
		         "TLS: the server's certificate is not trusted: %s (a test certificate: "
		         "[tls] ca_file = its CA, or insecure = yes)",
		         X509_verify_cert_error_string(v));
		return HTTP_FAIL_TLS_CERT;
	}
	if (reason > SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
		snprintf(msg, len, "TLS alert from the server%s: %s", during,
		         SSL_alert_desc_string_long(reason - SSL_AD_REASON_OFFSET));
		return HTTP_FAIL_TLS_ALERT;
	}
	if (!e || reason == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
		if (*os_errno) {
			snprintf(msg, len, "TLS%s: %s", during, strerror(*os_errno));
			return HTTP_FAIL_IO;
		}
		snprintf(msg, len, "TLS%s: the server closed the connection", during);
		return HTTP_FAIL_CLOSED;
	}
	if (reason == SSL_R_NO_CIPHERS_AVAILABLE || reason == SSL_R_NO_PROTOCOLS_AVAILABLE)
		f = HTTP_FAIL_OTHER; /* our own settings allow nothing */
	snprintf(msg, len, "TLS%s: %s%s", during, words ? words : "failed",
	         not_tls(reason) ? " (not a TLS server?)" : "");
	return f;
}
