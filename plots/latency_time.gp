# latency_time.gp: latency percentiles of one run over time.
# datafile: a header line, then `T P50 P90 P99` rows in ms (T in the unit of xlabel);
#   NaN where no request was answered.
# Variables: xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'latency (ms)'
plotcmd = "plot datafile using 1:2 with lines lt 1 title 'p50', '' using 1:3 with lines lt 2 title 'p90', '' using 1:4 with lines lt 3 title 'p99'"
load plotdir.'/draw.gp'
