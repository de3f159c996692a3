/*
 * capserver — an HTTP/1.1 server for tests/it/test_report.sh that saturates by design:
 * at most CAPACITY requests are in service at once, each for SERVICE_MS; the others wait
 * for a slot.  Throughput tops out at CAPACITY * 1000 / SERVICE_MS requests per second,
 * and past it latency grows with the queue (regserver's delays never hold a worker, so it
 * never saturates).  Every request is answered `201 {"id": 1}`, connections kept alive.
 *   capserver CAPACITY SERVICE_MS      prints `listening on 127.0.0.1:PORT`; SIGTERM ends it
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_MAX 65536 /* a request (headers and body) larger than this closes the connection */

static sem_t slots;          /* free service slots */
static struct timespec service; /* how long one request holds a slot */

/* Serves one connection until the client closes it or sends something unreadable. */
static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	static const char reply[] = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
				    "Content-Length: 9\r\n\r\n{\"id\": 1}";
	char *buf = malloc(REQ_MAX + 1);
	size_t have = 0;

	while (buf) {
		char *end = NULL, *cl;
		size_t head, body = 0;
		ssize_t n;
		buf[have] = '\0';
		while (!(end = strstr(buf, "\r\n\r\n"))) {
			if (have >= REQ_MAX || (n = read(fd, buf + have, REQ_MAX - have)) <= 0)
				goto out;
			have += (size_t)n;
			buf[have] = '\0';
		}
		head = (size_t)(end - buf) + 4;
		for (cl = buf; cl < end; cl++)
			if (strncasecmp(cl, "\r\nContent-Length:", 17) == 0) {
				body = strtoul(cl + 17, NULL, 10);
				break;
			}
		if (head + body > REQ_MAX)
			goto out;
		while (have < head + body) {
			if ((n = read(fd, buf + have, REQ_MAX - have)) <= 0)
				goto out;
			have += (size_t)n;
		}
		sem_wait(&slots);
		nanosleep(&service, NULL);
		sem_post(&slots);
		if (write(fd, reply, sizeof reply - 1) != (ssize_t)(sizeof reply - 1))
			goto out;
		memmove(buf, buf + head + body, have - head - body);
		have -= head + body;
	}
out:
	free(buf);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof a;
	int one = 1, lfd, capacity;
	long ms;

	if (argc != 3 || (capacity = atoi(argv[1])) < 1 || (ms = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: capserver CAPACITY SERVICE_MS\n");
		return 2;
	}
	sem_init(&slots, 0, (unsigned)capacity);
	service.tv_sec = ms / 1000;
	service.tv_nsec = (ms % 1000) * 1000000;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 512) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) < 0) {
		perror("capserver");
		return 3;
	}
	printf("listening on 127.0.0.1:%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		pthread_t t;
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (pthread_create(&t, NULL, serve, (void *)(intptr_t)fd) != 0)
			close(fd);
		else
			pthread_detach(t);
	}
}
