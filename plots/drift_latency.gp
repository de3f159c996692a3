# drift_latency.gp: the latency distribution of the first and the last part of one run's
# measured window, overlaid (the drift verdict's picture): latency against percentile, the
# percentile axis in nines (log scale of 1 / (1 - p)).
# datafile: one block per part (separated by two blank lines), each starting with a header
#   line `x "PART"`, then `X MS` rows with X = 1 / (1 - p/100) (1 = 0 %, 10 = 90 %,
#   100 = 99 %, ...) up to what the part's request count resolves.
# Variables: nseries (blocks).
load plotdir.'/common.gp'
set logscale x 10
set xrange [1:*]
set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, '99.999%%' 100000)
set mxtics 10
set xlabel 'percentile'
set ylabel 'latency (ms)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with linespoints lt (i+1) title columnheader(2)"
load plotdir.'/draw.gp'
