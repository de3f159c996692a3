#include "scenario_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dur.h"
#include "frame.h"
#include "scenario_int.h"

/* [request] keys that only mean something for HTTP. */
static const char *const http_keys[] = {"url",           "method",      "header", "body",
                                        "expect_status", "expect_body", "weight"};

int scn_address_split(const char *addr, char *host, size_t hostlen, int *port, char *err,
                      size_t errlen)
{
	const char *colon, *h = addr;
	size_t hl;
	char *end;
	long v;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':') {
			snprintf(err, errlen, "'%s' is not [ADDRESS]:PORT", addr);
			return -1;
		}
		h = addr + 1;
		hl = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || strchr(addr, ':') != colon) {
			snprintf(err, errlen, "'%s' is not HOST:PORT", addr);
			return -1;
		}
		hl = (size_t)(colon - addr);
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(err, errlen, "'%s': %s host", addr, hl ? "too long a" : "no");
		return -1;
	}
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || errno || v < 1 || v > 65535) {
		snprintf(err, errlen, "'%s': the port must be 1..65535", addr);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (int)v;
	return 0;
}

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
static char *read_template(struct parse *p, const struct scenario *s, struct entry *e)
{
	char path[4096];
	struct stat st;
	FILE *f;
	char *text = NULL;
	size_t n;

	if (e->value[0] != '/' && strchr(s->file, '/'))
		snprintf(path, sizeof path, "%.*s/%s", (int)(strrchr(s->file, '/') - s->file),
		         s->file, e->value);
	else
		snprintf(path, sizeof path, "%s", e->value);
	f = fopen(path, "rb");
	if (!f) {
		perr(p, e, 0, "file: cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_FRAME_FILE_MAX) {
		perr(p, e, 0, "file: '%s' is not a regular file of at most %ld bytes", path,
		     SCN_FRAME_FILE_MAX);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		perr(p, e, 0, "out of memory");
		goto out;
	}
	n = fread(text, 1, (size_t)st.st_size, f);
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		perr(p, e, 0, "file: '%s' is not text (contains NUL bytes)", path);
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
static void parse_payload(struct parse *p, struct scenario *s, const char *sec,
                          struct scn_frame *fr)
{
	struct entry *text = find(p, sec, "text"), *file = find(p, sec, "file"), *e;
	long v;

	if (!!text == !!file) {
		perr(p, text ? text : NULL, section_line(p, sec),
		     "[%s] needs %s of text = ... or file = PATH", sec, text ? "only one" : "one");
		return;
	}
	if (text) {
		compile_tpl(p, s, text, &fr->text);
	} else {
		struct entry tmp = *file;
		tmp.value = read_template(p, s, file);
		if (tmp.value)
			compile_tpl(p, s, &tmp, &fr->text);
		free(tmp.value);
	}
	fr->type = FRAME_TYPE_JSON;
	if ((e = find(p, sec, "type")) && get_int(p, e, 0, 65535, &v) == 0)
		fr->type = (int)v;
}

static void parse_handshake(struct parse *p, struct scenario *s, const char *sec)
{
	struct entry *e;

	s->has_handshake = 1;
	s->handshake.expect_reply = 1;
	parse_payload(p, s, sec, &s->handshake);
	if ((e = find(p, sec, "expect")))
		s->handshake_expect = compile_re(p, e, "expect");
}

static void parse_frame(struct parse *p, struct scenario *s, const char *sec)
{
	struct scn_frame *fr;
	struct entry *e;

	if (s->nframes >= SCN_MAX_FRAMES) {
		perr(p, NULL, section_line(p, sec), "more than %d frame sections", SCN_MAX_FRAMES);
		return;
	}
	fr = &s->frames[s->nframes++];
	parse_payload(p, s, sec, fr);
	if ((e = find(p, sec, "expect_reply")))
		get_bool(p, e, &fr->expect_reply);
}

/* Only [request] itself may be given with tcp-frame. */
static void no_named_request(struct parse *p, struct scenario *s, const char *sec)
{
	(void)s;
	if (strcmp(sec, "request") != 0)
		perr(
		    p, NULL, section_line(p, sec),
		    "[%s]: protocol = tcp-frame sends the [frame.NAME] sections, not request kinds",
		    sec);
}

static void not_http(struct parse *p, struct scenario *s, const char *sec)
{
	(void)s;
	perr(p, NULL, section_line(p, sec), "[%s] needs protocol = tcp-frame in [request]", sec);
}

void scn_parse_frames(struct parse *p, struct scenario *s)
{
	struct entry *e = find(p, "request", "protocol"), *addr, *maxf;
	char host[256], err[256];
	int port;
	long v;

	if (e && strcmp(e->value, "tcp-frame") == 0)
		s->protocol = SCN_TCP_FRAME;
	else if (e && strcmp(e->value, "http") != 0)
		perr(p, e, 0, "protocol: expected http or tcp-frame, not '%s'", e->value);
	addr = find(p, "request", "address");
	maxf = find(p, "request", "max_frame");
	if (s->protocol == SCN_HTTP) {
		if (addr || maxf)
			perr(p, addr ? addr : maxf, 0, "%s: needs protocol = tcp-frame",
			     addr ? "address" : "max_frame");
		each_section(p, s, "handshake", not_http);
		each_section(p, s, "frame", not_http);
		return;
	}
	for (size_t i = 0; i < sizeof http_keys / sizeof http_keys[0]; i++)
		if ((e = find(p, "request", http_keys[i])))
			perr(p, e, 0,
			     "%s: an HTTP key; protocol = tcp-frame sends [frame.NAME] sections",
			     e->key);
	each_section(p, s, "request", no_named_request);
	if (!addr)
		perr(p, NULL, section_line(p, "request"), "[request] needs address = HOST:PORT");
	else if (scn_address_split(addr->value, host, sizeof host, &port, err, sizeof err) < 0)
		perr(p, addr, 0, "address: %s", err);
	else
		s->address = dup_or_die(p, addr->value);
	s->max_frame = SCN_MAX_FRAME_DEFAULT;
	if (maxf) {
		if (parse_size(maxf->value, &v) < 0 || v < 1 || v > (long)FRAME_MAX_LEN)
			perr(p, maxf, 0,
			     "max_frame: '%s' is not a size of 1 to %u bytes (512k, 1M)",
			     maxf->value, FRAME_MAX_LEN);
		else
			s->max_frame = (int)v;
	}
	each_section(p, s, "handshake", parse_handshake);
	each_section(p, s, "frame", parse_frame);
	if (s->nframes == 0)
		perr(p, NULL, section_line(p, "request"),
		     "protocol = tcp-frame needs at least one [frame.NAME] section");
}

void scn_print_frames(const struct scenario *s, FILE *f)
{
	char a[32];
	const int64_t timeout = s->nreqs > 0 ? s->reqs[0].timeout_ms : 0;

	if (s->protocol != SCN_TCP_FRAME)
		return;
	fprintf(f, "  tcp-frame to %s: %s; timeout %s; replies up to %d bytes\n", s->address,
	        s->connection == SCN_CLOSE ? "a new connection (connect, handshake, frames, close) "
	                                     "per iteration"
	                                   : "one connection per VU, handshake once",
	        dur_format(timeout, a, sizeof a), s->max_frame);
	if (s->has_handshake)
		fprintf(f, "  handshake: type %d, %zu+ bytes%s, reply %s\n", s->handshake.type,
		        s->handshake.text.min_len, s->handshake.text.dynamic ? " (templated)" : "",
		        s->handshake_expect ? "checked against expect" : "read");
	for (int i = 0; i < s->nframes; i++)
		fprintf(f, "  frame %d: type %d, %zu+ bytes%s, %s\n", i + 1, s->frames[i].type,
		        s->frames[i].text.min_len, s->frames[i].text.dynamic ? " (templated)" : "",
		        s->frames[i].expect_reply ? "one reply read" : "no reply");
}
