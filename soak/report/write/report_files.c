/* report_files: the report's directory and its files, each written through a temporary
 * name and renamed, so a reader never sees half a file; new ones get fmode.h's modes. */
#include "report/report_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmode.h"
#include "report_findings.h"
#include "report_validity_text.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_plot.h"

#define PATH_MAX_LEN 4096

/* Writes one output file through a temporary name. */
static int write_one(const struct report *r, const char *dir, const char *name,
                     int (*fn)(const struct report *, FILE *), char *err, size_t errlen)
{
	char path[PATH_MAX_LEN], tmp[PATH_MAX_LEN + 8];
	FILE *f;
	int bad;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	f = fmode_fopen(tmp);
	if (!f) {
		snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
		return -1;
	}
	bad = fn(r, f) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write '%s'", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int rpt_write_files(struct report *r, const char *dir, int draw, char *err, size_t errlen)
{
	if (rpt_findings(r) < 0 || rpt_validity_words(r) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fmode_mkdir_p(dir, err, errlen) < 0)
		return -1;
	if (draw ? rpt_plots(r, dir, err, errlen) < 0 : rpt_plan_pictures(r, err, errlen) < 0)
		return -1;
	if (!draw)
		snprintf(r->plot_note, sizeof r->plot_note,
		         "Pictures were not drawn (--no-plots).");
	if (write_one(r, dir, "report.md", rpt_write_md, err, errlen) < 0 ||
	    write_one(r, dir, "report.html", rpt_write_html, err, errlen) < 0 ||
	    write_one(r, dir, "summary.csv", rpt_write_csv, err, errlen) < 0 ||
	    write_one(r, dir, "report.json", rpt_write_json, err, errlen) < 0)
		return -1;
	return 0;
}
