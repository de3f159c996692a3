/*
 * Error classes of finished HTTP requests (httpclass.h).
 */
#include "httpclass.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

enum err_class http_fail_class(enum http_fail f, long os_errno, int connected)
{
	switch (f) {
	case HTTP_FAIL_CONNECT:
		if (os_errno == EADDRNOTAVAIL)
			return ERR_CLIENT_PORTS;
		if (os_errno == ECONNREFUSED)
			return ERR_CONNECT_REFUSED;
		if (os_errno == ETIMEDOUT)
			return ERR_CONNECT_TIMEOUT;
		if (os_errno == ECONNRESET)
			return ERR_RESET;
		return ERR_OTHER;
	case HTTP_FAIL_TIMEOUT:
		return connected == HTTP_PHASE_TLS       ? ERR_TLS_TIMEOUT
		       : connected == HTTP_PHASE_REQUEST ? ERR_TIMEOUT
		                                         : ERR_CONNECT_TIMEOUT;
	case HTTP_FAIL_CLOSED:
		return ERR_RESET;
	case HTTP_FAIL_IO:
		if (os_errno == ECONNRESET || os_errno == EPIPE || os_errno == ENOTCONN ||
		    os_errno == 0)
			return ERR_RESET;
		return os_errno == ETIMEDOUT ? ERR_TIMEOUT : ERR_OTHER; /* the kernel gave up */
	case HTTP_FAIL_PROTOCOL:
		return ERR_PROTOCOL;
	case HTTP_FAIL_DNS:
		return ERR_DNS;
	case HTTP_FAIL_TLS_CERT:
		return ERR_TLS_CERT;
	case HTTP_FAIL_TLS_ALERT:
		return ERR_TLS_ALERT;
	case HTTP_FAIL_H2_RST:
		return ERR_H2_RST;
	case HTTP_FAIL_H2_GOAWAY:
		return ERR_H2_GOAWAY;
	case HTTP_FAIL_OTHER:
		break;
	}
	return ERR_OTHER;
}

enum err_class http_transport_class(int code, long os_errno, int connected, const char *text)
{
	enum http_fail f;

	/* libcurl words a TLS alert the server sent as OpenSSL does ("... alert handshake
	 * failure", "tlsv13 alert certificate required"), whichever step met it. */
	if ((code == CURLE_SSL_CONNECT_ERROR || code == CURLE_RECV_ERROR ||
	     code == CURLE_SEND_ERROR) &&
	    text && strstr(text, " alert "))
		return ERR_TLS_ALERT;
	switch (code) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		f = HTTP_FAIL_TLS_CERT;
		break;
	case CURLE_SSL_CONNECT_ERROR:
		f = HTTP_FAIL_PROTOCOL; /* not TLS (a plain server), or no common ground */
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_INTERFACE_FAILED:
		f = HTTP_FAIL_CONNECT;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		f = HTTP_FAIL_TIMEOUT;
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		f = HTTP_FAIL_DNS;
		break;
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		f = HTTP_FAIL_CLOSED;
		break;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		f = HTTP_FAIL_IO;
		break;
	case CURLE_HTTP2_STREAM: /* the stream "was not closed cleanly": the server reset it */
		f = HTTP_FAIL_H2_RST;
		break;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_HTTP2:
	case CURLE_BAD_CONTENT_ENCODING:
		f = HTTP_FAIL_PROTOCOL;
		break;
	default:
		f = HTTP_FAIL_OTHER;
		break;
	}
	return http_fail_class(f, os_errno, connected);
}

enum err_class http_fail_detail(const struct plan_request *r, enum http_fail f, long os_errno,
                                int connected, const char *what, char *detail, size_t detail_len)
{
	snprintf(detail, detail_len, "%s %s: %s", r->method, r->name, what);
	return http_fail_class(f, os_errno, connected);
}

int http_status_class(long status, int expect)
{
	if (expect ? status == expect : status >= 100 && status < 400)
		return -1;
	if (status >= 500 && status < 600)
		return ERR_HTTP_5XX;
	if (status >= 400 && status < 500)
		return ERR_HTTP_4XX;
	return ERR_STATUS_MISMATCH;
}

int http_judge(const struct plan_request *r, long status, const char *body, size_t len,
               pcre2_match_data *md, char *detail, size_t detail_len)
{
	int cls = http_status_class(status, r->expect_status);

	if (cls >= 0) {
		if (r->expect_status)
			snprintf(detail, detail_len, "%s %s: HTTP %ld (expected %d)", r->method,
			         r->name, status, r->expect_status);
		else
			snprintf(detail, detail_len, "%s %s: HTTP %ld", r->method, r->name, status);
		return cls;
	}
	if (r->expect_body &&
	    pcre2_match(r->expect_body, (PCRE2_SPTR)(body ? body : ""), len, 0, 0, md, NULL) < 0) {
		snprintf(detail, detail_len, "%s %s: body does not match /%.60s/: %.80s", r->method,
		         r->name, r->expect_body_src, body ? body : "");
		return ERR_BODY_MISMATCH;
	}
	return -1;
}
