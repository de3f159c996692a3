/*
 * A worker's epoll set and its wake-up (evloop.h).
 */
#include "evloop.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine_int.h"

void evloop_none(struct evloop *l)
{
	l->epfd = l->wakefd = -1;
}

int evloop_init(struct evloop *l, char *err, size_t errlen)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EVLOOP_WAKE};

	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->epfd < 0 || l->wakefd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) < 0) {
		snprintf(err, errlen, "cannot create an event loop: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void evloop_release(struct evloop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->wakefd >= 0)
		close(l->wakefd);
	evloop_none(l);
}

void evloop_wake(struct evloop *l)
{
	uint64_t one = 1;
	if (l->wakefd < 0)
		return;
	if (write(l->wakefd, &one, sizeof one) < 0)
		return; /* already pending: the counter is non-zero */
}

int evloop_wait(struct evloop *l, struct epoll_event *ev, int n, int64_t wait_us)
{
	int got = engine_epoll_wait(l->epfd, ev, n, wait_us);

	for (int i = 0; i < got; i++) {
		if (ev[i].data.u64 != EVLOOP_WAKE)
			continue;
		uint64_t x;
		if (read(l->wakefd, &x, sizeof x) < 0) {
			/* nothing to drain: another wait took it */
		}
		ev[i] = ev[--got];
		break;
	}
	return got;
}
