# gc_pauses.gp: stop-the-world GC pauses of one source in one run over time.
# datafile: a header line, then `T MS` rows (the longest pause per bucket on long runs).
# Variables: xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'GC pause (ms)'
plotcmd = "plot datafile using 1:2 with impulses lt 2 title 'pause'"
load plotdir.'/draw.gp'
