/*
 * frameload — for the bench clients (frameclient.c, curl_connect_only.c): a frame template
 * file turned into the frame soak would send, placeholders replaced by fixed values of
 * typical length (${now_ms}: 13 digits, the others: "1"), the file's final line break
 * dropped.  Exits on an unreadable file: these are benchmark tools.
 */
#ifndef BENCH_FRAMELOAD_H
#define BENCH_FRAMELOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends header + payload of the template at path to *buf (realloc'd), *len grows. */
static inline void frame_load(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	static char text[1 << 16], out[1 << 16];
	size_t n, o = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	text[n] = '\0';
	for (size_t i = 0; i < n && o < sizeof out - 16;) {
		char *close = text[i] == '$' && text[i + 1] == '{' ? strchr(text + i, '}') : NULL;
		if (close) {
			o += (size_t)sprintf(out + o, "%s",
					     strncmp(text + i, "${now_ms}", 9) ? "1" : "1764468000123");
			i = (size_t)(close - text) + 1;
		} else {
			out[o++] = text[i++];
		}
	}
	unsigned char *b = realloc(*buf, *len + 6 + o);
	if (!b)
		exit(3);
	*buf = b;
	unsigned char *h = b + *len;
	h[0] = 0, h[1] = 1, h[2] = (unsigned char)(o >> 24), h[3] = (unsigned char)(o >> 16);
	h[4] = (unsigned char)(o >> 8), h[5] = (unsigned char)o;
	memcpy(h + 6, out, o);
	*len += 6 + o;
}

#endif
