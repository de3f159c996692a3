# tps_time.gp: throughput over time, one line per run.
# datafile: one block per run (separated by two blank lines), each starting with a header
#   line `time "LABEL #RUN"`, then `T TPS` rows (T in the unit of xlabel).
# Variables: nseries (blocks), xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'throughput (requests/s)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with lines title columnheader(2)"
load plotdir.'/draw.gp'
