# heap_gc.gp: heap after GC of one source in one run, with the points the memory verdict
# regressed and its trend line.
# datafile: block 0 `T MB` heap after each GC (lowest per bucket on long runs); when
#   hastrend is 1, block 1 the regression points `T MB` and block 2 the trend line's two
#   ends `T MB`.  Every block starts with a header line.
# Variables: hastrend (0 or 1), xlabel, heapmax (MB: the heap's size, drawn as a line when
#   the heap after GC comes near it; 0 to leave it out).
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'heap after GC (MB)'
# Room above and right of the data: a point at the top of the range (a heap at its ceiling,
# a value on a round tic) would otherwise sit on the frame, half cut.
set offsets 0, graph 0.02, graph 0.06, 0
ceiling = heapmax > 0 ? sprintf(", %g with lines lt 7 dt 3 lw 1 title 'heap size'", heapmax) : ""
if (hastrend) {
	plotcmd = "plot datafile index 0 using 1:2 with points lt 6 pt 7 ps 0.4 title 'heap after GC', " . \
	          "'' index 1 using 1:2 with points lt 2 pt 5 ps 1.0 title 'points regressed', " . \
	          "'' index 2 using 1:2 with lines lt 7 dt 2 lw 2 title 'trend'" . ceiling
} else {
	plotcmd = "plot datafile index 0 using 1:2 with points lt 6 pt 7 ps 0.4 title 'heap after GC'" . ceiling
}
load plotdir.'/draw.gp'
