# heap_gc.gp: heap after GC of one source in one run, with the points the memory verdict
# regressed and its trend line.
# datafile: block 0 `T MB` heap after each GC (lowest per bucket on long runs); when
#   hastrend is 1, block 1 the regression points `T MB` and block 2 the trend line's two
#   ends `T MB`.  Every block starts with a header line.
# Variables: hastrend (0 or 1), xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'heap after GC (MB)'
if (hastrend) {
	plotcmd = "plot datafile index 0 using 1:2 with points lt 6 pt 7 ps 0.4 title 'heap after GC', " . \
	          "'' index 1 using 1:2 with points lt 2 pt 5 ps 1.0 title 'points regressed', " . \
	          "'' index 2 using 1:2 with lines lt 7 dt 2 lw 2 title 'trend'"
} else {
	plotcmd = "plot datafile index 0 using 1:2 with points lt 6 pt 7 ps 0.4 title 'heap after GC'"
}
load plotdir.'/draw.gp'
