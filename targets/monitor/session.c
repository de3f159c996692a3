/* session: the monitor server's agent sessions (session.h), kept until idle for their ttl
 * or evicted least recently used when the table is full: fixed memory. */
#include "session.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* The memory malloc really gave (what RSS sees), not what was asked for. */
static size_t msize(void *p)
{
	return p ? malloc_usable_size(p) : 0;
}

static void unlink_s(struct sessions *t, struct session *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		t->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		t->tail = s->prev;
	s->prev = s->next = NULL;
}

static void append(struct sessions *t, struct session *s)
{
	s->prev = t->tail;
	s->next = NULL;
	if (t->tail)
		t->tail->next = s;
	else
		t->head = s;
	t->tail = s;
}

static void drop(struct sessions *t, struct session *s)
{
	unlink_s(t, s);
	t->count--;
	t->bytes -= s->bytes;
	free(s->host);
	free(s->tag);
	free(s->version);
	free(s->ips);
	free(s->macs);
	free(s);
}

void sessions_init(struct sessions *t, int64_t ttl_ms, int64_t max)
{
	memset(t, 0, sizeof *t);
	t->ttl_ms = ttl_ms;
	t->max = max > 0 ? max : 1;
	t->next_id = 1;
}

/* A string field, or a JSON array of strings joined with commas, copied; NULL if absent. */
static char *field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_array(v)) {
		size_t n = 0, i;
		json_t *x;
		json_array_foreach(v, i, x) n += json_is_string(x) ? json_string_length(x) + 1 : 0;
		char *out = malloc(n + 1), *q = out;
		if (!out)
			return NULL;
		json_array_foreach(v, i, x)
		{
			if (!json_is_string(x))
				continue;
			if (q > out)
				*q++ = ',';
			memcpy(q, json_string_value(x), json_string_length(x));
			q += json_string_length(x);
		}
		*q = '\0';
		return out;
	}
	return NULL;
}

struct session *session_open(struct sessions *t, json_t *connect, int64_t now_ms)
{
	struct session *s;

	/* Full: the least recently used idle session makes room (bounded look). */
	for (int i = 0; t->count >= t->max && t->head && i < 64; i++) {
		struct session *h = t->head;
		if (h->conns > 0) {
			unlink_s(t, h);
			append(t, h);
			continue;
		}
		drop(t, h);
		t->evicted++;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->id = t->next_id++;
	s->last_ms = now_ms;
	s->host = field(connect, "HOST_NAME");
	s->tag = field(connect, "SERVICE_TAG");
	s->version = field(connect, "VERSON");
	s->ips = field(connect, "IP");
	s->macs = field(connect, "MAC_ADDR");
	s->bytes = msize(s) + msize(s->host) + msize(s->tag) + msize(s->version) + msize(s->ips) +
	           msize(s->macs);
	append(t, s);
	t->count++;
	t->opened++;
	t->bytes += s->bytes;
	if (t->count > t->peak)
		t->peak = t->count;
	if (t->bytes > t->peak_bytes)
		t->peak_bytes = t->bytes;
	return s;
}

void session_touch(struct sessions *t, struct session *s, int64_t now_ms)
{
	s->last_ms = now_ms;
	if (t->tail != s) {
		unlink_s(t, s);
		append(t, s);
	}
}

void sessions_expire(struct sessions *t, int64_t now_ms, int budget)
{
	while (budget-- > 0 && t->head && now_ms - t->head->last_ms >= t->ttl_ms) {
		struct session *h = t->head;
		if (h->conns > 0) {
			/* In use: it is not idle, whatever its last message. */
			session_touch(t, h, now_ms);
			continue;
		}
		drop(t, h);
		t->expired++;
	}
}

void sessions_release(struct sessions *t)
{
	while (t->head)
		drop(t, t->head);
}
