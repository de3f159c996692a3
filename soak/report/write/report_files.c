/* report_files: the report's directory and its files, each written through a temporary
 * name and renamed, so a reader never sees half a file, never through a planted link, in a
 * folder checked to be the user's (outdir.h); new ones get fmode.h's modes. */
#include "report/report_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"
#include "report_findings.h"
#include "report_validity_text.h"
#include "report_html.h"
#include "report_json.h"
#include "report_md.h"
#include "report_plot.h"
#include "report_flame.h"

/* Each profile comparison's flame graph as img/profile-N.svg (pcmp.svg set once written). */
static int write_flames(struct report *r, const struct outdir *dir, char *err, size_t errlen)
{
	struct outdir img;

	if (r->npcmps == 0)
		return 0;
	if (outdir_sub(dir, "img", &img, err, errlen) < 0)
		return -1;
	for (int i = 0; i < r->npcmps; i++) {
		char name[32], *svg = rpt_flame_svg(r, &r->pcmps[i]);
		struct outfile o;
		snprintf(name, sizeof name, "profile-%d.svg", i + 1);
		if (!svg || outfile_open(&o, &img, name, err, errlen) < 0) {
			if (!svg)
				snprintf(err, errlen, "out of memory drawing a flame graph");
			free(svg);
			outdir_close(&img);
			return -1;
		}
		fputs(svg, o.f);
		free(svg);
		if (outfile_commit(&o, err, errlen) < 0) {
			outdir_close(&img);
			return -1;
		}
		snprintf(r->pcmps[i].svg, sizeof r->pcmps[i].svg, "img/%s", name);
	}
	outdir_close(&img);
	return 0;
}

/* Writes one output file through a temporary name (outdir.h). */
static int write_one(const struct report *r, const struct outdir *dir, const char *name,
                     int (*fn)(const struct report *, FILE *), char *err, size_t errlen)
{
	struct outfile o;

	if (outfile_open(&o, dir, name, err, errlen) < 0)
		return -1;
	if (fn(r, o.f) < 0) {
		snprintf(err, errlen, "cannot write '%s/%s'", dir->path, name);
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, err, errlen);
}

int rpt_write_files(struct report *r, const char *path, int draw, char *err, size_t errlen)
{
	struct outdir dir;
	int rc = -1;

	if (rpt_findings(r) < 0 || rpt_validity_words(r) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (outdir_open(&dir, path, 1, err, errlen) < 0)
		return -1;
	if (draw ? rpt_plots(r, &dir, err, errlen) < 0 : rpt_plan_pictures(r, err, errlen) < 0)
		goto done;
	if (write_flames(r, &dir, err, errlen) < 0)
		goto done;
	if (!draw)
		snprintf(r->plot_note, sizeof r->plot_note,
		         "Pictures were not drawn (--no-plots).");
	if (write_one(r, &dir, "report.md", rpt_write_md, err, errlen) < 0 ||
	    write_one(r, &dir, "details.md", rpt_write_md_details, err, errlen) < 0 ||
	    write_one(r, &dir, "report.html", rpt_write_html, err, errlen) < 0 ||
	    write_one(r, &dir, "details.html", rpt_write_html_details, err, errlen) < 0 ||
	    write_one(r, &dir, "summary.csv", rpt_write_csv, err, errlen) < 0 ||
	    write_one(r, &dir, "report.json", rpt_write_json, err, errlen) < 0)
		goto done;
	rc = 0;
done:
	outdir_close(&dir);
	return rc;
}
