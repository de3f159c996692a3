/*
 * curl_connect_only — would libcurl's CURLOPT_CONNECT_ONLY serve the tcp-frame driver as
 * well as plain sockets?  One thread, one agent, N batches in a row against bin/monitor,
 * both ways, timing wall and CPU per batch:
 *   plain  socket + connect, write the handshake, read its reply, write the frames, close
 *   curl   curl_easy_perform with CONNECT_ONLY (short: an easy handle per connection), then
 *          curl_easy_send/curl_easy_recv on it, waiting with poll on CURLINFO_ACTIVESOCKET
 * `long` connects once and only writes batches (both ways).  Built by bench/tcpframe.sh.
 *
 *   curl_connect_only HOST PORT long|short BATCHES HANDSHAKE.json FRAME.json...
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "frameload.h"

static unsigned char *hs, *frames;
static size_t hs_len, frames_len;

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- plain sockets --------------------------------------------------------------------- */

static int p_send(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0)
			return -1;
		p += k, n -= (size_t)k;
	}
	return 0;
}

static int p_recv(int fd, unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = recv(fd, p, n, 0);
		if (k <= 0)
			return -1;
		p += k, n -= (size_t)k;
	}
	return 0;
}

static int p_open(const struct sockaddr_in *a)
{
	unsigned char b[4096];
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (const struct sockaddr *)a, sizeof *a) < 0 || p_send(fd, hs, hs_len) < 0 ||
	    p_recv(fd, b, 6) < 0)
		return -1;
	uint32_t len = (uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 | b[5];
	if (len > sizeof b || p_recv(fd, b, len) < 0)
		return -1;
	return fd;
}

/* --- libcurl CONNECT_ONLY -------------------------------------------------------------- */

static int c_wait(CURL *e, short ev)
{
	curl_socket_t s;
	if (curl_easy_getinfo(e, CURLINFO_ACTIVESOCKET, &s) != CURLE_OK)
		return -1;
	struct pollfd p = {.fd = s, .events = ev};
	return poll(&p, 1, 5000) == 1 ? 0 : -1;
}

static int c_send(CURL *e, const unsigned char *p, size_t n)
{
	while (n > 0) {
		size_t k = 0;
		CURLcode rc = curl_easy_send(e, p, n, &k);
		if (rc == CURLE_AGAIN) {
			if (c_wait(e, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (rc != CURLE_OK)
			return -1;
		p += k, n -= k;
	}
	return 0;
}

static int c_recv(CURL *e, unsigned char *p, size_t n)
{
	while (n > 0) {
		size_t k = 0;
		CURLcode rc = curl_easy_recv(e, p, n, &k);
		if (rc == CURLE_AGAIN) {
			if (c_wait(e, POLLIN) < 0)
				return -1;
			continue;
		}
		if (rc != CURLE_OK || k == 0)
			return -1;
		p += k, n -= k;
	}
	return 0;
}

static int c_open(CURL *e)
{
	unsigned char b[4096];
	if (curl_easy_perform(e) != CURLE_OK || c_send(e, hs, hs_len) < 0 || c_recv(e, b, 6) < 0)
		return -1;
	uint32_t len = (uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 | b[5];
	return len > sizeof b || c_recv(e, b, len) < 0 ? -1 : 0;
}

static CURL *c_handle(const char *url)
{
	CURL *e = curl_easy_init();
	if (!e)
		exit(3);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	return e;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	char url[128];
	long n;
	int lng;

	if (argc < 7) {
		fprintf(stderr, "usage: curl_connect_only HOST PORT long|short BATCHES HANDSHAKE FRAME...\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	inet_pton(AF_INET, argv[1], &a.sin_addr);
	lng = strcmp(argv[3], "long") == 0;
	n = atol(argv[4]);
	if (n < 1 || n > 10000000)
		return 2;
	frame_load(argv[5], &hs, &hs_len);
	for (int i = 6; i < argc; i++)
		frame_load(argv[i], &frames, &frames_len);
	snprintf(url, sizeof url, "http://%s:%s", argv[1], argv[2]);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	for (int way = 0; way < 2; way++) {
		double c0 = cpu_s(), w0 = wall_s();
		long done = 0;
		int fd = -1;
		CURL *e = NULL;
		if (way == 1 && lng)
			e = c_handle(url);
		for (long i = 0; i < n; i++) {
			int ok;
			if (way == 0) {
				if (fd < 0)
					fd = p_open(&a);
				ok = fd >= 0 && p_send(fd, frames, frames_len) == 0;
				if (!lng || !ok) {
					if (fd >= 0)
						close(fd);
					fd = -1;
				}
			} else {
				/* long: one perform, then batches on its connection; short: a handle
				 * per connection (FORBID_REUSE would close it right after connect) */
				if (!lng)
					e = c_handle(url);
				ok = (lng && i > 0) || c_open(e) == 0;
				ok = ok && c_send(e, frames, frames_len) == 0;
				if (!lng) {
					curl_easy_cleanup(e);
					e = NULL;
				}
			}
			done += ok;
		}
		if (fd >= 0)
			close(fd);
		if (e)
			curl_easy_cleanup(e);
		double cpu = cpu_s() - c0, wall = wall_s() - w0;
		printf("%-5s %-6s batches %ld ok %ld  wall %.1f us/batch  cpu %.1f us/batch\n", argv[3],
		       way ? "curl" : "plain", n, done, wall * 1e6 / (double)n, cpu * 1e6 / (double)n);
	}
	curl_global_cleanup();
	free(hs);
	free(frames);
	return 0;
}
