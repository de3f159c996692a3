# rss_time.gp: resident memory of each process source of one run over time.
# datafile: one block per source, each starting with a header line `time "SOURCE"`, then
#   `T MB` rows.
# Variables: nseries, xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'resident memory (MB)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with lines title columnheader(2)"
load plotdir.'/draw.gp'
