/*
 * redact — secrets kept out of what soak stores and writes.
 *
 * A database or a report is made to be passed around; the secrets a test needs (an
 * Authorization header, a cookie, an API key in a URL, a password in a body or on a target
 * process's command line) must stay on the machine they were typed on.  Everything soak
 * stores or writes that may hold one — a scenario or study file's text (runs.scenario,
 * studies.text), a request URL (runs.url), a process's command line (run_env) — goes
 * through here first, and the report does it again on what it prints (a file written by an
 * older soak).
 *
 * What is a secret: a value whose *name* looks like one.  A name (a header, a URL query or
 * form parameter, a JSON member, a command-line option, a -D system property, an
 * environment variable, a scenario key) is cut into words at every character that is not
 * a letter (and where a lower-case letter meets an upper-case one: keyStorePassword is
 * key, store, password); it is secret-looking when a word, lower-cased,
 *   - is, is the plural of, or ends with password, passwd, passphrase, secret, token,
 *     credential, apikey, cookie, authorization, sessionid, sessid, signature, key or auth
 *     (dbpassword, accesstoken, clientsecret, jsessionid, oauth);
 *   - or is pass, pwd, pw, sig or otp;
 * unless the name's last word says it names something about a secret, not the secret
 * (file, path, size, type, store, name, url, id, timeout, ...: keyStore is a path,
 * --password-file too, ephemeralDHKeySize a number; secret_key_base is a secret).  A name
 * added with redact_add() (a scenario's `redact` key) is secret when it is one of the
 * words or the whole name (X-Tenant-Id).
 * The forms recognised, in any text given:
 *   Name: value           a header at the start of a line or a token (Authorization,
 *                         Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, ...): the
 *                         value to the end of the line; an authorization's scheme (Bearer,
 *                         Basic) is kept
 *   scheme://user:pw@...  URL userinfo: the password (all of it when there is no ':')
 *   name=value            query and form parameters, -Dname=value, --name=value, NAME=value
 *                         (an environment variable): the value up to a blank, '&' or quote
 *   --name value          an option whose value is the next word (one not starting with -)
 *   "name": "value"       a JSON member (a string, or a bare number or word)
 * The name stays and the value becomes "[redacted]" (-Ddb.password=[redacted]).  A value
 * that is nothing but placeholders (${env:DB_PASSWORD}, ${random:12}, ${csv:pass}) is
 * kept: it holds no secret, and it says where the value comes from.
 *
 * Every function returns a new string (malloc'd; the caller frees it) or NULL when out of
 * memory; r may be NULL (the built-in names only).  A struct redact is read-only after
 * set-up, so threads may share it.
 */
#ifndef SOAK_REDACT_H
#define SOAK_REDACT_H

#include <stddef.h>

#define REDACTED         "[redacted]"
#define REDACT_MAX_NAMES 32 /* names added to the built-in ones */
#define REDACT_NAME_MAX  64 /* one added name's length, with its NUL */

/* The names added to the built-in ones. */
struct redact {
	char names[REDACT_MAX_NAMES][REDACT_NAME_MAX]; /* lower case, each once */
	int n;                                         /* used */
};

void redact_init(struct redact *r);
/* Adds the names of a list (separated by commas or blanks): letters, digits, '_', '-' and
 * '.'.  0, or -1 with err (a bad or too long name, too many). */
int redact_add(struct redact *r, const char *list, char *err, size_t errlen);
/* A command's --redact LIST option into r: 0, or -1 after printing "PROG: --redact:
 * why" on stderr. */
int redact_option(const char *prog, struct redact *r, const char *list);
/* Adds the names of every `redact = LIST` line of a scenario or study file's text (as
 * stored: soak keeps that line, the names are no secret), so that what a stored run
 * wrote can be redacted again with its own names (a report, a merge); lines it cannot
 * take are passed over.  The names already in r stay. */
void redact_add_from_ini(struct redact *r, const char *text);
/* The added names as one comma-separated list into out ("" when none). */
void redact_list(const struct redact *r, char *out, size_t len);
/* 1 when the name of len bytes looks like it holds a secret (see above). */
int redact_is_secret(const struct redact *r, const char *name, size_t len);

/* One value or line of free text (a header line, a URL, a body, a command line, a
 * message): every form above. */
char *redact_text(const struct redact *r, const char *text);
/* A command line as /proc/PID/cmdline has it (arguments separated by NULs, len bytes):
 * one line, the arguments joined by blanks, each redacted as one argument (--x=v and
 * -Dx=v up to the argument's end, the argument after a secret-looking --x). */
char *redact_argv(const struct redact *r, const char *args, size_t len);
/* A scenario or study file's text (INI): each `key = value` (a secret-looking key's whole
 * value), commented-out lines and `; --set section.key=value` lines alike. */
char *redact_ini(const struct redact *r, const char *text);

#endif
