# cpu_time.gp: CPU of each collector series of one run over time.
# datafile: one block per series, each starting with a header line `time "SERIES"`, then
#   `T CPU%` rows (process series: 100 = one core; host series: % of all cores).
# Variables: nseries, xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'CPU (%, 100 = one core; host: of all cores)'
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 with lines title columnheader(2)"
load plotdir.'/draw.gp'
