/* scenario_frame: the tcp-frame part of a scenario file (scenario_frame.h), checked as
 * strictly as the HTTP part: FILE:LINE for every mistake. */
#include "scenario_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dur.h"
#include "engine/frame.h"
#include "scenario_read.h"

/* [request] keys that only mean something for HTTP. */
static const char *const http_keys[] = {"url",           "method",      "header", "body",
                                        "expect_status", "expect_body", "weight"};

/* Bytes as people write them: 1048576, 512k, 1M (k = 1024). */
static int parse_size(const char *v, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (end == v || errno || n < 0)
		return -1;
	if (*end == 'k' || *end == 'K')
		n = n > (1L << 40) ? -1 : n * 1024, end++;
	else if (*end == 'm' || *end == 'M')
		n = n > (1L << 30) ? -1 : n * 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || n < 0)
		return -1;
	*out = n;
	return 0;
}

/* Reads a frame template file (relative to the scenario) into a fresh string, without
 * its final line break; NULL after perr. */
static char *read_template(struct scn_parse *p, const struct scenario *s, struct scn_entry *e)
{
	char path[4096];
	struct stat st;
	FILE *f;
	char *text = NULL;
	size_t n;

	scn_path(s, e->value, path, sizeof path);
	f = fopen(path, "rb");
	if (!f) {
		scn_perr(p, e, 0, "file: cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_FRAME_FILE_MAX) {
		scn_perr(p, e, 0, "file: '%s' is not a regular file of at most %ld bytes", path,
		         SCN_FRAME_FILE_MAX);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		scn_perr(p, e, 0, "out of memory");
		goto out;
	}
	n = fread(text, 1, (size_t)st.st_size, f);
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		scn_perr(p, e, 0, "file: '%s' is not text (contains NUL bytes)", path);
		free(text);
		text = NULL;
		goto out;
	}
	/* Files end with a line break by convention; the payload is what comes before it. */
	if (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	if (n > 0 && text[n - 1] == '\r')
		text[--n] = '\0';
out:
	fclose(f);
	return text;
}

/* text or file, and type, of [handshake] or [frame.NAME] into fr. */
static void parse_payload(struct scn_parse *p, struct scenario *s, const char *sec,
                          struct plan_frame *fr)
{
	struct scn_entry *text = scn_find(p, sec, "text"), *file = scn_find(p, sec, "file"), *e;
	long v;

	if (!!text == !!file) {
		scn_perr(p, text ? text : NULL, scn_section_line(p, sec),
		         "[%s] needs %s of text = ... or file = PATH", sec,
		         text ? "only one" : "one");
		return;
	}
	if (text) {
		scn_compile_tpl(p, s, text, &fr->text);
	} else {
		struct scn_entry tmp = *file;
		tmp.tvalue = NULL; /* a file's text is a template as it is */
		tmp.value = read_template(p, s, file);
		if (tmp.value)
			scn_compile_tpl(p, s, &tmp, &fr->text);
		free(tmp.value);
	}
	fr->type = FRAME_TYPE_JSON;
	if ((e = scn_find(p, sec, "type")) && scn_get_int(p, e, 0, 65535, &v) == 0)
		fr->type = (int)v;
}

static void parse_handshake(struct scn_parse *p, struct scenario *s, const char *sec)
{
	struct scn_entry *e;

	s->plan.has_handshake = 1;
	s->plan.handshake.expect_reply = 1;
	parse_payload(p, s, sec, &s->plan.handshake);
	if ((e = scn_find(p, sec, "expect")))
		s->plan.handshake_expect = scn_compile_re(p, e, "expect");
}

static void parse_frame(struct scn_parse *p, struct scenario *s, const char *sec)
{
	struct plan_frame *fr;
	struct scn_entry *e;

	if (s->plan.nframes >= PLAN_MAX_FRAMES) {
		scn_perr(p, NULL, scn_section_line(p, sec), "more than %d frame sections",
		         PLAN_MAX_FRAMES);
		return;
	}
	fr = &s->plan.frames[s->plan.nframes++];
	parse_payload(p, s, sec, fr);
	if ((e = scn_find(p, sec, "expect_reply")))
		scn_get_bool(p, e, &fr->expect_reply);
}

/* Only [request] itself may be given with tcp-frame. */
static void no_named_request(struct scn_parse *p, struct scenario *s, const char *sec)
{
	(void)s;
	if (strcmp(sec, "request") != 0)
		scn_perr(
		    p, NULL, scn_section_line(p, sec),
		    "[%s]: protocol = tcp-frame sends the [frame.NAME] sections, not request kinds",
		    sec);
}

static void not_http(struct scn_parse *p, struct scenario *s, const char *sec)
{
	(void)s;
	scn_perr(p, NULL, scn_section_line(p, sec), "[%s] needs protocol = tcp-frame in [request]",
	         sec);
}

void scn_parse_frames(struct scn_parse *p, struct scenario *s)
{
	struct scn_entry *e = scn_find(p, "request", "protocol"), *addr, *maxf;
	char host[256], err[256];
	int port;
	long v;

	if (e && strcmp(e->value, "tcp-frame") == 0)
		s->plan.protocol = PLAN_TCP_FRAME;
	else if (e && strcmp(e->value, "http") != 0)
		scn_perr(p, e, 0, "protocol: expected http or tcp-frame, not '%s'", e->value);
	addr = scn_find(p, "request", "address");
	maxf = scn_find(p, "request", "max_frame");
	if (s->plan.protocol == PLAN_HTTP) {
		if (addr || maxf)
			scn_perr(p, addr ? addr : maxf, 0, "%s: needs protocol = tcp-frame",
			         addr ? "address" : "max_frame");
		scn_each_section(p, s, "handshake", not_http);
		scn_each_section(p, s, "frame", not_http);
		return;
	}
	for (size_t i = 0; i < sizeof http_keys / sizeof http_keys[0]; i++)
		if ((e = scn_find(p, "request", http_keys[i])))
			scn_perr(
			    p, e, 0,
			    "%s: an HTTP key; protocol = tcp-frame sends [frame.NAME] sections",
			    e->key);
	scn_each_section(p, s, "request", no_named_request);
	if (!addr)
		scn_perr(p, NULL, scn_section_line(p, "request"),
		         "[request] needs address = HOST:PORT");
	else if (plan_address_split(addr->value, host, sizeof host, &port, err, sizeof err) < 0)
		scn_perr(p, addr, 0, "address: %s", err);
	else
		s->plan.address = scn_dup(p, addr->value);
	s->plan.max_frame = SCN_MAX_FRAME_DEFAULT;
	if (maxf) {
		if (parse_size(maxf->value, &v) < 0 || v < 1 || v > (long)FRAME_MAX_LEN)
			scn_perr(p, maxf, 0,
			         "max_frame: '%s' is not a size of 1 to %u bytes (512k, 1M)",
			         maxf->value, FRAME_MAX_LEN);
		else
			s->plan.max_frame = (int)v;
	}
	scn_each_section(p, s, "handshake", parse_handshake);
	scn_each_section(p, s, "frame", parse_frame);
	if (s->plan.nframes == 0)
		scn_perr(p, NULL, scn_section_line(p, "request"),
		         "protocol = tcp-frame needs at least one [frame.NAME] section");
}

void scn_print_frames(const struct scenario *s, FILE *f)
{
	char a[32];
	const int64_t timeout = s->plan.nreqs > 0 ? s->plan.reqs[0].timeout_ms : 0;

	if (s->plan.protocol != PLAN_TCP_FRAME)
		return;
	fprintf(f, "  tcp-frame to %s: %s; timeout %s; replies up to %d bytes\n", s->plan.address,
	        s->plan.connection == PLAN_CLOSE
	            ? "a new connection (connect, handshake, frames, close) "
	              "per iteration"
	            : "one connection per VU, handshake once",
	        dur_format(timeout, a, sizeof a), s->plan.max_frame);
	if (s->plan.has_handshake)
		fprintf(f, "  handshake: type %d, %zu+ bytes%s, reply %s\n", s->plan.handshake.type,
		        s->plan.handshake.text.min_len,
		        s->plan.handshake.text.dynamic ? " (templated)" : "",
		        s->plan.handshake_expect ? "checked against expect" : "read");
	for (int i = 0; i < s->plan.nframes; i++)
		fprintf(f, "  frame %d: type %d, %zu+ bytes%s, %s\n", i + 1, s->plan.frames[i].type,
		        s->plan.frames[i].text.min_len,
		        s->plan.frames[i].text.dynamic ? " (templated)" : "",
		        s->plan.frames[i].expect_reply ? "one reply read" : "no reply");
}
