# gc_pauses.gp: stop-the-world GC pauses of one source in one run over time.
# datafile: a header line, then `T MS` rows (the longest pause per bucket on long runs).
# Variables: xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'GC pause (ms)'
# Room above the longest pause, so its top is not cut by the frame.
set offsets 0, graph 0.02, graph 0.06, 0
plotcmd = "plot datafile using 1:2 with impulses lt 2 title 'pause'"
load plotdir.'/draw.gp'
