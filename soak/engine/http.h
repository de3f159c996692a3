/*
 * http — the engine's HTTP driver on libcurl's multi interface (see engine_int.h for the
 * driver contract).  This header exposes only what tests need: how a finished transfer
 * is classed.
 */
#ifndef SOAK_HTTP_H
#define SOAK_HTTP_H

#include "stats.h"

/* The error class of a transfer that ended with libcurl code `curl_code` (non-zero), the
 * OS errno libcurl saw (CURLINFO_OS_ERRNO) and whether the TCP connection was up. */
enum err_class http_transport_class(int curl_code, long os_errno, int connected);
/* The class of an answered request with HTTP `status`, or -1 when the status passes
 * (expect = 0 accepts 1xx..3xx). */
int http_status_class(long status, int expect);

#endif
