/* common/outdir.c: files created under random names and renamed into place, never through a
 * link; folders of others or writable by others refused; a planted link's target untouched. */
#include <errno.h>
#include <fcntl.h>
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

#include "outdir.h"
#include "testdir.h"

/* The text of path ("" when it cannot be read). */
static const char *text_of(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", testdir, name);
}

static void writes_through_a_temporary_name(void **state)
{
	struct outdir d;
	struct outfile o;
	char err[512], path[256];
	struct stat st;
	(void)state;

	path_of(path, sizeof path, "rep");
	assert_int_equal(outdir_open(&d, path, 1, err, sizeof err), 0);
	assert_int_equal(outfile_open(&o, &d, "report.md", err, sizeof err), 0);
	fputs("hello\n", o.f);
	/* Until the commit, the name holds nothing; the temporary one is hidden and random. */
	path_of(path, sizeof path, "rep/report.md");
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(strncmp(o.tmp, ".report.md.", 11), 0);
	assert_int_equal(strlen(o.tmp), strlen(".report.md.") + 12);
	assert_int_equal(outfile_commit(&o, err, sizeof err), 0);
	assert_string_equal(text_of(path), "hello\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	outdir_close(&d);
}

static void a_planted_link_is_replaced_not_followed(void **state)
{
	struct outdir d;
	struct outfile o;
	char err[512], path[256], victim[256], link[256];
	FILE *f;
	(void)state;

	path_of(victim, sizeof victim, "victim");
	f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	path_of(path, sizeof path, "rep2");
	assert_int_equal(outdir_open(&d, path, 1, err, sizeof err), 0);
	path_of(link, sizeof link, "rep2/report.html");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(outfile_open(&o, &d, "report.html", err, sizeof err), 0);
	fputs("<html>\n", o.f);
	assert_int_equal(outfile_commit(&o, err, sizeof err), 0);
	assert_string_equal(text_of(victim), "precious\n");
	assert_string_equal(text_of(link), "<html>\n");
	/* Must be new: a dangling link at the name is refused, nothing written through it. */
	path_of(link, sizeof link, "rep2/saved.ini");
	path_of(victim, sizeof victim, "nothing-here");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(outfile_open(&o, &d, "saved.ini", err, sizeof err), 0);
	fputs("secret\n", o.f);
	assert_int_equal(outfile_commit_new(&o, err, sizeof err), -1);
	assert_non_null(strstr(err, "not replaced, not followed"));
	assert_int_equal(access(victim, F_OK), -1);
	outdir_close(&d);
}

static void folders_others_can_write_are_refused(void **state)
{
	struct outdir d, sub;
	char err[512], path[256], link[256];
	(void)state;

	path_of(path, sizeof path, "open");
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(outdir_open(&d, path, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "others can write to it (mode 0777 without the sticky bit)"));
	assert_int_equal(d.fd, -1);
	assert_int_equal(chmod(path, 01777), 0); /* sticky, as /tmp: nobody renames another's */
	assert_int_equal(outdir_open(&d, path, 0, err, sizeof err), 0);
	outdir_close(&d);
	/* A folder that is a link is not followed. */
	path_of(link, sizeof link, "linked");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(outdir_open(&d, link, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "symbolic link"));
	/* Nor is a sub-folder that is a link (img/ pointing elsewhere). */
	path_of(path, sizeof path, "rep3");
	assert_int_equal(outdir_open(&d, path, 1, err, sizeof err), 0);
	path_of(link, sizeof link, "rep3/img");
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(outdir_sub(&d, "img", &sub, err, sizeof err), -1);
	assert_non_null(strstr(err, "symbolic link"));
	/* And removing never follows or takes a folder. */
	assert_int_equal(outdir_remove(&d, "img"), 0);
	assert_int_equal(access("/etc/passwd", F_OK), 0);
	outdir_close(&d);
}

static void another_users_file_is_not_replaced(void **state)
{
	struct outdir d;
	struct outfile o;
	char err[512], path[256], cmd[160];
	FILE *f;
	(void)state;

	if (geteuid() != 0) { /* only root can give a file away; the check then says so */
		print_message("# not root: chown(2) is not allowed, nothing to check\n");
		return;
	}
	path_of(path, sizeof path, "rep4");
	assert_int_equal(outdir_open(&d, path, 1, err, sizeof err), 0);
	path_of(path, sizeof path, "rep4/summary.csv");
	f = fopen(path, "w");
	fputs("theirs\n", f);
	fclose(f);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(outfile_open(&o, &d, "summary.csv", err, sizeof err), 0);
	fputs("ours\n", o.f);
	assert_int_equal(outfile_commit(&o, err, sizeof err), -1);
	assert_non_null(strstr(err, "belongs to another user (uid 65534)"));
	assert_string_equal(text_of(path), "theirs\n");
	/* The temporary file is gone with the refusal. */
	snprintf(cmd, sizeof cmd, "test $(ls -A '%s/rep4' | wc -l) -eq 1", testdir);
	assert_int_equal(system(cmd), 0);
	/* A folder of another user is refused too. */
	path_of(path, sizeof path, "theirs");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	outdir_close(&d);
	assert_int_equal(outdir_open(&d, path, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "belongs to another user"));
}

static void a_private_folder_is_purged(void **state)
{
	struct outdir d, p, sub;
	char err[512], path[256];
	(void)state;

	path_of(path, sizeof path, "rep5");
	assert_int_equal(outdir_open(&d, path, 1, err, sizeof err), 0);
	assert_int_equal(outdir_private(&d, "work", &p, err, sizeof err), 0);
	assert_non_null(strstr(p.path, "/.work-"));
	assert_int_equal(outdir_sub(&p, "img", &sub, err, sizeof err), 0);
	close(openat(sub.fd, "a.svg", O_CREAT | O_WRONLY, 0600));
	outdir_close(&sub);
	outdir_purge(&d, &p);
	assert_int_equal(access(p.path, F_OK), -1);
	outdir_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(writes_through_a_temporary_name),
	    cmocka_unit_test(a_planted_link_is_replaced_not_followed),
	    cmocka_unit_test(folders_others_can_write_are_refused),
	    cmocka_unit_test(another_users_file_is_not_replaced),
	    cmocka_unit_test(a_private_folder_is_purged),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
