/* perf_attach: a JVM's diagnostic command through its attach socket, against a child that
 * plays a JVM's part as HotSpot does it: it listens on /tmp/.java_pidPID only after a
 * SIGQUIT finds .attach_pidPID in its working directory, takes a request of five
 * NUL-ended strings, and answers a status line and the output.  A real JVM answers soak-perf
 * in tests/it/test_profile.sh. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../collectors/perf_attach.c"
#include "testdir.h"

static const char REQUEST[] = "1\0jcmd\0Compiler.perfmap\0\0"; /* and the literal's NUL */

static volatile sig_atomic_t quits;
static void on_quit(int sig)
{
	(void)sig;
	quits++;
}

/* The fake JVM's answer to one connection: "0" for the expected request, 1 otherwise. */
static void answer(int c)
{
	char req[256], reply[128];
	size_t n = 0;
	int nuls = 0;

	while (nuls < 5 && n < sizeof req) {
		ssize_t r = read(c, req + n, 1);
		if (r <= 0)
			break;
		nuls += req[n++] == '\0';
	}
	if (n == sizeof REQUEST && !memcmp(req, REQUEST, n))
		snprintf(reply, sizeof reply, "0\nperf map written (quits %d)\n", (int)quits);
	else
		snprintf(reply, sizeof reply, "1\nunknown command\n");
	if (write(c, reply, strlen(reply)) < 0)
		_exit(3);
	close(c);
}

/* The child: says it is ready on fd ready, waits (5 s at most) for SIGQUIT and the
 * trigger file, then listens and answers `conns` connections.  listen_at_all 0: it never
 * listens (no JVM). */
static void fake_jvm(int ready, int conns, int listen_at_all)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char trigger[64];
	int s;

	signal(SIGQUIT, on_quit);
	if (chdir(testdir) < 0 || write(ready, "r", 1) != 1)
		_exit(2);
	snprintf(trigger, sizeof trigger, ".attach_pid%d", (int)getpid());
	for (int i = 0; i < 500 && !(quits && access(trigger, F_OK) == 0); i++)
		usleep(10000);
	if (!listen_at_all) {
		pause();
		_exit(0);
	}
	snprintf(a.sun_path, sizeof a.sun_path, "/tmp/.java_pid%d", (int)getpid());
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4) < 0)
		_exit(2);
	for (int k = 0; k < conns; k++) {
		int c = accept(s, NULL, NULL);
		if (c >= 0)
			answer(c);
	}
	unlink(a.sun_path);
	_exit(0);
}

/* A fake JVM, once its SIGQUIT handler is set and it works in testdir. */
static pid_t spawn_fake(int conns, int listen_at_all)
{
	int fds[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		fake_jvm(fds[1], conns, listen_at_all);
	}
	assert_true(pid > 0);
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

static int reaped(pid_t pid)
{
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void attach_starts_listener_then_reuses_it(void **state)
{
	char out[256], trigger[128];
	pid_t pid = spawn_fake(3, 1);
	(void)state;

	assert_int_equal(jvm_jcmd(pid, "Compiler.perfmap", 5000, out, sizeof out), 0);
	assert_string_equal(out, "perf map written (quits 1)\n");
	snprintf(trigger, sizeof trigger, "%s/.attach_pid%d", testdir, (int)pid);
	assert_int_equal(access(trigger, F_OK), -1); /* the trigger file is removed */
	/* Listening now: no second SIGQUIT. */
	assert_int_equal(jvm_jcmd(pid, "Compiler.perfmap", 5000, out, sizeof out), 0);
	assert_string_equal(out, "perf map written (quits 1)\n");
	/* A status other than 0 is a failure, its text kept. */
	assert_int_equal(jvm_jcmd(pid, "Compiler.bogus", 5000, out, sizeof out), -1);
	assert_string_equal(out, "1\nunknown command\n");
	assert_int_equal(reaped(pid), 0);
}

static void attach_without_listener_times_out(void **state)
{
	char out[256], trigger[128], target[128], tmp[64];
	struct stat st;
	pid_t pid = spawn_fake(0, 0);
	(void)state;

	/* A trigger planted in its folder, a link elsewhere: not written through, not
	 * removed; the one made in its /tmp instead is removed. */
	snprintf(trigger, sizeof trigger, "%s/.attach_pid%d", testdir, (int)pid);
	snprintf(target, sizeof target, "%s/planted-target", testdir);
	snprintf(tmp, sizeof tmp, "/tmp/.attach_pid%d", (int)pid);
	assert_int_equal(symlink(target, trigger), 0);
	assert_int_equal(jvm_jcmd(pid, "Compiler.perfmap", 300, out, sizeof out), -1);
	assert_non_null(strstr(out, "no attach listener came up"));
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(lstat(trigger, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(access(tmp, F_OK), -1);
	unlink(trigger);
	kill(pid, SIGKILL);
	reaped(pid);
	/* No such process: no trigger file can be made. */
	assert_int_equal(jvm_jcmd(pid, "Compiler.perfmap", 300, out, sizeof out), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(attach_starts_listener_then_reuses_it),
	    cmocka_unit_test(attach_without_listener_times_out),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
