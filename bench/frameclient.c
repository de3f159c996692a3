/*
 * frameclient — the floor for bench/tcpframe.sh: a plain C client that sends the same
 * frames as soak's tcp-frame driver and nothing else (no templates, no statistics, no
 * event loop: one thread per agent on blocking sockets).  What it costs is what the kernel
 * costs.  Built by the bench script with cc.
 *
 *   frameclient HOST PORT long|short VUS SECONDS HANDSHAKE.json FRAME.json...
 *
 * Placeholders in the files are replaced by fixed values of typical length (${now_ms}: 13
 * digits, others: "1"), so the frames have the sizes soak sends.  Prints
 * `iterations N errors N cpu_s X` (user + system CPU of the whole process).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "frameload.h"

struct plan {
	struct sockaddr_in addr;
	int short_mode;
	double seconds;
	unsigned char *hs, *frames; /* handshake frame, all data frames back to back */
	size_t hs_len, frames_len;
};

static _Atomic long iterations, errors;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int send_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int recv_all(int fd, unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = recv(fd, p, n, 0);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Connects and handshakes; the fd, or -1. */
static int open_session(const struct plan *p)
{
	unsigned char hdr[6], body[4096];
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (const struct sockaddr *)&p->addr, sizeof p->addr) < 0 ||
	    send_all(fd, p->hs, p->hs_len) < 0 || recv_all(fd, hdr, 6) < 0) {
		close(fd);
		return -1;
	}
	uint32_t len = (uint32_t)hdr[2] << 24 | (uint32_t)hdr[3] << 16 | (uint32_t)hdr[4] << 8 | hdr[5];
	if (len > sizeof body || recv_all(fd, body, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *agent(void *arg)
{
	const struct plan *p = arg;
	double end = now_s() + p->seconds;
	int fd = -1;

	while (now_s() < end) {
		if (fd < 0 && (fd = open_session(p)) < 0) {
			atomic_fetch_add(&errors, 1);
			usleep(50000);
			continue;
		}
		if (send_all(fd, p->frames, p->frames_len) < 0) {
			atomic_fetch_add(&errors, 1);
			close(fd);
			fd = -1;
			continue;
		}
		atomic_fetch_add(&iterations, 1);
		if (p->short_mode) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct plan p = {0};
	struct rusage ru;
	int vus;

	if (argc < 8) {
		fprintf(stderr, "usage: frameclient HOST PORT long|short VUS SECONDS HANDSHAKE FRAME...\n");
		return 2;
	}
	p.addr.sin_family = AF_INET;
	p.addr.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &p.addr.sin_addr) != 1) {
		fprintf(stderr, "frameclient: bad address %s\n", argv[1]);
		return 2;
	}
	p.short_mode = strcmp(argv[3], "short") == 0;
	vus = atoi(argv[4]);
	p.seconds = atof(argv[5]);
	if (vus < 1 || vus > 10000 || p.seconds <= 0 || p.seconds > 3600) {
		fprintf(stderr, "frameclient: VUS 1..10000, SECONDS 0..3600\n");
		return 2;
	}
	frame_load(argv[6], &p.hs, &p.hs_len);
	for (int i = 7; i < argc; i++)
		frame_load(argv[i], &p.frames, &p.frames_len);
	pthread_t *t = calloc((size_t)vus, sizeof *t);
	for (int i = 0; i < vus; i++)
		pthread_create(&t[i], NULL, agent, &p);
	for (int i = 0; i < vus; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("iterations %ld errors %ld cpu_s %.3f\n", atomic_load(&iterations), atomic_load(&errors),
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		       ru.ru_stime.tv_usec / 1e6);
	free(t);
	free(p.hs);
	free(p.frames);
	return 0;
}
