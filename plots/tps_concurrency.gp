# tps_concurrency.gp: throughput against concurrency, one line per label.
# datafile: one block per label, each starting with a header line `users "LABEL"`, then
#   `N TPS` rows by ascending N.
# Variables: nseries.
load plotdir.'/common.gp'
set xlabel 'concurrency (virtual users)'
set ylabel 'throughput (requests/s)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with linespoints title columnheader(2)"
load plotdir.'/draw.gp'
