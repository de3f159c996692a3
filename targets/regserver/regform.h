/*
 * regform — the body of POST /register: parsing (URL-encoded form or a flat JSON object)
 * and validation of its three fields.
 *
 *   username  3..64 characters of [A-Za-z0-9_.-]
 *   email     3..254 bytes, no blanks or control characters, exactly one '@' with text
 *             before it, and a '.' after it that is neither the domain's first nor last
 *             character (a@b.c)
 *   password  8..128 characters (UTF-8 code points), no NUL
 *
 * Strings must be valid UTF-8 once decoded.  Other keys are ignored.  A field given twice
 * counts as bad (which value would be meant?).  JSON is strict: one object, string keys,
 * values that are strings (the three fields must be) or other scalars (numbers, true,
 * false, null; for keys we ignore); no nesting, nothing after the object.  The form follows
 * the HTML rules: pairs split on '&', '+' is a space, %XX escapes.
 *
 * The parser decodes in place: the body is modified and the field pointers point into it
 * (no allocation, no copy; decoding never lengthens a string).  Values are not
 * NUL-terminated.  No globals; thread-safe.
 */
#ifndef REGSERVER_REGFORM_H
#define REGSERVER_REGFORM_H

#include <stddef.h>

enum regform_kind {
	REGFORM_URLENCODED, /* application/x-www-form-urlencoded */
	REGFORM_JSON,       /* application/json */
};

/* What regform_read() found; the first bad field in the order username, email, password. */
enum regform_verdict {
	REGFORM_VALID = 0,
	REGFORM_BAD_USERNAME,
	REGFORM_BAD_EMAIL,
	REGFORM_BAD_PASSWORD,
	REGFORM_MALFORMED, /* the body is not a form / a JSON object at all */
};

struct regform {
	const char *username; /* points into the body; valid while it is */
	size_t username_len;  /* bytes */
	const char *email;    /* points into the body */
	size_t email_len;     /* bytes */
	const char *password; /* points into the body */
	size_t password_len;  /* bytes */
};

/* Maps a Content-Type value (parameters such as charset allowed, case-insensitive) to a
 * kind: 0, or -1 when it is neither (or NULL). */
int regform_kind_of(const char *content_type, enum regform_kind *kind);
/* Parses and validates body[0..len) (modified in place). */
enum regform_verdict regform_read(enum regform_kind kind, char *body, size_t len,
                                  struct regform *f);

#endif
