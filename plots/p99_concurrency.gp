# p99_concurrency.gp: 99th percentile latency against concurrency, one line per label.
# datafile: one block per label, each starting with a header line `users "LABEL"`, then
#   `N P99` rows by ascending N (ms).
# Variables: nseries.
load plotdir.'/common.gp'
set xlabel 'concurrency (virtual users)'
set ylabel '99th percentile latency (ms)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with linespoints title columnheader(2)"
load plotdir.'/draw.gp'
