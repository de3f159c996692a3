/* Redaction (common/redact.c) on every form it knows, and the modes of new files
 * (common/fmode.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fmode.h"
#include "redact.h"

struct tcase {
	const char *in, *out;
};

static void check_text(const struct redact *r, const struct tcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *got = redact_text(r, c[i].in);
		assert_non_null(got);
		if (strcmp(got, c[i].out) != 0)
			fail_msg("redact_text(\"%s\")\n  got  \"%s\"\n  want \"%s\"", c[i].in, got,
			         c[i].out);
		free(got);
	}
}

static void names(void **state)
{
	static const char *const secret[] = {"password",
	                                     "Password",
	                                     "PASSWORD",
	                                     "db.password",
	                                     "--db-password",
	                                     "-Ddb.pass",
	                                     "DB_PASSWORD",
	                                     "keyStorePassword",
	                                     "javax.net.ssl.trustStorePassword",
	                                     "api_key",
	                                     "apiKey",
	                                     "X-API-Key",
	                                     "X-Auth-Token",
	                                     "access_token",
	                                     "client_secret",
	                                     "credentials",
	                                     "AWS_SECRET_ACCESS_KEY",
	                                     "jsessionid",
	                                     "PHPSESSID",
	                                     "Authorization",
	                                     "Proxy-Authorization",
	                                     "Cookie",
	                                     "Set-Cookie",
	                                     "passwd",
	                                     "pwd",
	                                     "oauth2",
	                                     "X-Amz-Signature",
	                                     "sig",
	                                     "spring.datasource.password",
	                                     "--password",
	                                     "-password",
	                                     "passwords",
	                                     "secretKey",
	                                     "otp",
	                                     "SECRET_KEY_BASE",
	                                     "api_key_2",
	                                     "keyStorePassword2"};
	static const char *const plain[] = {
	    "keepalive", "soak.target", "username", "email", "Content-Type", "compass", "bypass",
	    "keyspace", "address", "Xmx", "-Dsoak.target", "--heap", "User-Agent", "", "-", "-D",
	    "author", "session_timeout", "passage",
	    /* about a secret, not one: its last word says so */
	    "keyStore", "javax.net.ssl.keyStoreType", "jdk.tls.ephemeralDHKeySize",
	    "--password-file", "token_url", "AWS_ACCESS_KEY_ID", "keyStore2", "cookie_max_age"};
	(void)state;
	for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
		if (!redact_is_secret(NULL, secret[i], strlen(secret[i])))
			fail_msg("'%s' should be secret-looking", secret[i]);
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		if (redact_is_secret(NULL, plain[i], strlen(plain[i])))
			fail_msg("'%s' should not be secret-looking", plain[i]);
}

static void headers(void **state)
{
	static const struct tcase c[] = {
	    {"Authorization: Bearer abc.def", "Authorization: Bearer [redacted]"},
	    {"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [redacted]"},
	    {"authorization:   Bearer x", "authorization:   Bearer [redacted]"},
	    {"Authorization: abcdef", "Authorization: [redacted]"},
	    {"Proxy-Authorization: Basic eHg6eXk=", "Proxy-Authorization: Basic [redacted]"},
	    {"Cookie: JSESSIONID=abc; theme=dark", "Cookie: [redacted]"},
	    {"Set-Cookie: id=1; HttpOnly", "Set-Cookie: [redacted]"},
	    {"X-Api-Key: 1234", "X-Api-Key: [redacted]"},
	    {"X-Auth-Token: t0k", "X-Auth-Token: [redacted]"},
	    {"Content-Type: application/json", "Content-Type: application/json"},
	    {"Authorization: Bearer ${env:TOKEN}", "Authorization: Bearer ${env:TOKEN}"},
	    {"Authorization: ${env:AUTH}", "Authorization: ${env:AUTH}"},
	    {"Authorization: Bearer x${env:TOKEN}", "Authorization: Bearer [redacted]"},
	    {"Authorization:", "Authorization:"},
	    {"a\nCookie: c=1\nb", "a\nCookie: [redacted]\nb"},
	    /* a header inside a quoted shell word ends at the quote */
	    {"curl -H 'Authorization: Bearer x' http://h/", "curl -H 'Authorization: Bearer "
	                                                    "[redacted]' http://h/"},
	    {"http://h:8080/x", "http://h:8080/x"},
	};
	(void)state;
	check_text(NULL, c, sizeof c / sizeof *c);
}

static void urls(void **state)
{
	static const struct tcase c[] = {
	    {"http://user:hunter2@h:8080/p", "http://user:[redacted]@h:8080/p"},
	    {"https://tok3n@api.example/x", "https://[redacted]@api.example/x"},
	    {"http://u:${env:PW}@h/", "http://u:${env:PW}@h/"},
	    {"http://h/p?api_key=abc&x=1", "http://h/p?api_key=[redacted]&x=1"},
	    /* a '#' may be part of a password: the value runs on */
	    {"http://h/p?x=1&access_token=abc#frag", "http://h/p?x=1&access_token=[redacted]"},
	    {"http://h/p?X-Amz-Signature=ff00&X-Amz-Date=2024",
	     "http://h/p?X-Amz-Signature=[redacted]&X-Amz-Date=2024"},
	    {"http://h/p?user=me&page=2", "http://h/p?user=me&page=2"},
	    {"jdbc:postgresql://db:5432/app?user=a&password=b", "jdbc:postgresql://db:5432/"
	                                                        "app?user=a&password=[redacted]"},
	    {"go to http://a:b@h/ now", "go to http://a:[redacted]@h/ now"},
	    {"http://h/a@b", "http://h/a@b"},
	    {"mailto:x@y", "mailto:x@y"},
	};
	(void)state;
	check_text(NULL, c, sizeof c / sizeof *c);
}

static void bodies(void **state)
{
	static const struct tcase c[] = {
	    {"username=u${seq}&password=hunter2&email=a@b", "username=u${seq}&password=[redacted]"
	                                                    "&email=a@b"},
	    {"username=u${seq}&password=${random:12}", "username=u${seq}&password=${random:12}"},
	    {"password=${env:PW}", "password=${env:PW}"},
	    {"password=pre${env:PW}", "password=[redacted]"},
	    {"{\"user\":\"u\",\"password\":\"hu\\\"nter\"}",
	     "{\"user\":\"u\",\"password\":\"[redacted]\"}"},
	    {"{\"token\" : \"abc\", \"n\": 1}", "{\"token\" : \"[redacted]\", \"n\": 1}"},
	    {"{\"pin\": 1234, \"apiKey\": 99}", "{\"pin\": 1234, \"apiKey\": [redacted]}"},
	    {"{\"credentials\": {\"user\": \"a\", \"secret\": \"s\"}}",
	     "{\"credentials\": {\"user\": \"a\", \"secret\": \"[redacted]\"}}"},
	    {"{\"password\": \"${env:PW}\"}", "{\"password\": \"${env:PW}\"}"},
	    {"password=", "password="},
	    {"password=\"a b\" x", "password=\"[redacted]\" x"},
	};
	(void)state;
	check_text(NULL, c, sizeof c / sizeof *c);
}

static void command_lines(void **state)
{
	static const struct tcase c[] = {
	    {"java -Ddb.password=s3cret -jar app.jar",
	     "java -Ddb.password=[redacted] -jar app.jar"},
	    {"java -Djavax.net.ssl.keyStorePassword=x -Xmx256m",
	     "java -Djavax.net.ssl.keyStorePassword=[redacted] -Xmx256m"},
	    {"server --db-password s3cret --port 80", "server --db-password [redacted] --port 80"},
	    {"server --db-password=s3cret --port 80", "server --db-password=[redacted] --port 80"},
	    {"server --token --verbose", "server --token --verbose"},
	    {"env DB_PASSWORD=s3cret API_KEY=k ./run",
	     "env DB_PASSWORD=[redacted] API_KEY=[redacted] "
	     "./run"},
	    {"java -Dsoak.target=tomcat10 -XX:+UseG1GC -Xlog:gc*:file=/tmp/gc.log:time",
	     "java -Dsoak.target=tomcat10 -XX:+UseG1GC -Xlog:gc*:file=/tmp/gc.log:time"},
	    {"postgres -D /data -c listen_addresses=127.0.0.1",
	     "postgres -D /data -c listen_addresses=127.0.0.1"},
	    {"x --password ${env:PW}", "x --password ${env:PW}"},
	};
	(void)state;
	check_text(NULL, c, sizeof c / sizeof *c);
}

static void argv_form(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} c[] = {
	    {"java\0-Ddb.password=a b&c\0-jar\0x.jar\0", 36,
	     "java -Ddb.password=[redacted] -jar x.jar"},
	    {"srv\0--db-password\0two words\0--port\0"
	     "080\0",
	     39, "srv --db-password [redacted] --port 080"},
	    {"srv\0--db-password\0--port\0", 25, "srv --db-password --port"},
	    {"curl\0-H\0Authorization: Bearer x y\0http://u:p@h/\0", 48,
	     "curl -H Authorization: Bearer [redacted] http://u:[redacted]@h/"},
	    {"env\0DB_PASSWORD=a&b\0run\0", 24, "env DB_PASSWORD=[redacted] run"},
	    {"a\0b", 3, "a b"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *got = redact_argv(NULL, c[i].in, c[i].len);
		assert_non_null(got);
		if (strcmp(got, c[i].out) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, got, c[i].out);
		free(got);
	}
}

static void ini_text(void **state)
{
	const char *in = "[scenario]\n"
	                 "name = secret test\n"
	                 "[request]\n"
	                 "url  = http://u:pw1@127.0.0.1:8080/r?api_key=k1&a=1\n"
	                 "header = Authorization: Bearer tk1   ; the token\n"
	                 "header = X-Tenant: acme\n"
	                 "header=Cookie: a=b\r\n"
	                 "body = user=u${seq}&password=pw2\n"
	                 "; header = Authorization: Bearer old1\n"
	                 "[target.x]\n"
	                 "start = srv --db-password pw3 --port 0\n"
	                 "set = request.header=X-Api-Key: k2\n"
	                 "password = pw4\n"
	                 "; overrides given on the command line:\n"
	                 ";   --set request.body=password=pw5\n"
	                 ";   --set request.token=pw6\n";
	const char *want = "[scenario]\n"
	                   "name = secret test\n"
	                   "[request]\n"
	                   "url  = http://u:[redacted]@127.0.0.1:8080/r?api_key=[redacted]&a=1\n"
	                   "header = Authorization: Bearer [redacted]\n"
	                   "header = X-Tenant: [redacted]\n"
	                   "header=Cookie: [redacted]\r\n"
	                   "body = user=u${seq}&password=[redacted]\n"
	                   "; header = Authorization: Bearer [redacted]\n"
	                   "[target.x]\n"
	                   "start = srv --db-password [redacted] --port 0\n"
	                   "set = request.header=X-Api-Key: [redacted]\n"
	                   "password = [redacted]\n"
	                   "; overrides given on the command line:\n"
	                   ";   --set request.body=password=[redacted]\n"
	                   ";   --set request.token=[redacted]\n";
	struct redact r;
	char err[128], list[128];
	(void)state;
	redact_init(&r);
	assert_int_equal(redact_add(&r, "X-Tenant, X-Tenant sid", err, sizeof err), 0);
	assert_int_equal(r.n, 2);
	redact_list(&r, list, sizeof list);
	assert_string_equal(list, "x-tenant,sid");
	char *got = redact_ini(&r, in);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	/* Placeholders stay: a file that keeps its secrets in the environment is unchanged. */
	const char *clean = "[request]\nurl = http://u:${env:PW}@h/\n"
	                    "header = Authorization: Bearer ${env:TOKEN}\n"
	                    "body = password=${env:PW}&n=${random:8}\n";
	got = redact_ini(&r, clean);
	assert_string_equal(got, clean);
	free(got);
}

static void added_names(void **state)
{
	struct redact r;
	char err[128];
	static const struct tcase c[] = {
	    {"X-Tenant: acme", "X-Tenant: [redacted]"},
	    {"http://h/?sid=1&x=2", "http://h/?sid=[redacted]&x=2"},
	    {"-Dapp.sid=7", "-Dapp.sid=[redacted]"},
	    {"--sid 7", "--sid [redacted]"},
	    {"{\"sid\": \"7\"}", "{\"sid\": \"[redacted]\"}"},
	    {"X-Tenant-Region: eu", "X-Tenant-Region: eu"},
	};
	(void)state;
	redact_init(&r);
	assert_int_equal(redact_add(&r, "x-tenant,sid", err, sizeof err), 0);
	check_text(&r, c, sizeof c / sizeof *c);
	assert_int_equal(redact_add(&r, "a=b", err, sizeof err), -1);
	assert_string_equal(err, "'a=b' is not a name (letters, digits, '_', '-', '.')");
	char many[40 * 4] = "";
	for (int i = 0; i < 40; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "n%d,", i);
	assert_int_equal(redact_add(&r, many, err, sizeof err), -1);
	assert_string_equal(err, "more than 32 names");
}

static void modes(void **state)
{
	char err[200], dir[] = "/tmp/test_redact.XXXXXX", path[256];
	mode_t m, old = umask(022);
	struct stat st;
	(void)state;

	assert_int_equal(fmode_parse("0640", &m, err, sizeof err), 0);
	assert_int_equal(m, 0640);
	assert_int_equal(fmode_parse("644", &m, err, sizeof err), 0);
	assert_int_equal(m, 0644);
	assert_int_equal(fmode_parse("0755", &m, err, sizeof err), -1);
	assert_int_equal(fmode_parse("0400", &m, err, sizeof err), -1);
	assert_string_equal(err, "file mode '0400': the owner must keep read and write (0600 "
	                         "and up)");
	assert_int_equal(fmode_parse("rw", &m, err, sizeof err), -1);
	assert_int_equal(fmode_parse("", &m, err, sizeof err), -1);

	assert_non_null(mkdtemp(dir));
	unsetenv(FMODE_ENV);
	assert_int_equal(fmode_file(), 0600);
	assert_int_equal(fmode_dir(), 0700);
	assert_int_equal(fmode_umask(), 077);
	snprintf(path, sizeof path, "%s/a", dir);
	assert_int_equal(fmode_create(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* An existing file keeps its mode. */
	chmod(path, 0644);
	assert_int_equal(fmode_create(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	setenv(FMODE_ENV, "0644", 1);
	assert_int_equal(fmode_check_env(err, sizeof err), 0);
	assert_int_equal(fmode_dir(), 0755);
	snprintf(path, sizeof path, "%s/b", dir);
	assert_int_equal(fmode_create(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* The umask still takes away. */
	umask(077);
	snprintf(path, sizeof path, "%s/c", dir);
	assert_int_equal(fmode_create(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* A bad mode is an error to check, and never a looser file. */
	setenv(FMODE_ENV, "0777", 1);
	assert_int_equal(fmode_check_env(err, sizeof err), -1);
	assert_int_equal(fmode_file(), 0600);
	unsetenv(FMODE_ENV);
	umask(old);
	for (const char *n = "abc"; *n; n++) {
		snprintf(path, sizeof path, "%s/%c", dir, *n);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names),         cmocka_unit_test(headers),
	    cmocka_unit_test(urls),          cmocka_unit_test(bodies),
	    cmocka_unit_test(command_lines), cmocka_unit_test(argv_form),
	    cmocka_unit_test(ini_text),      cmocka_unit_test(added_names),
	    cmocka_unit_test(modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
