# drift_tps.gp: throughput of one run over time with the parts its drift verdict compares
# shaded (the first third and the last, of the measured window).
# datafile: a header line, then `T TPS` rows (T in the unit of xlabel); intervals that are
#   no rate (the drain) are left out.
# Variables: xlabel; a0, a1 (the first part), b0, b1 (the last part), in the unit of xlabel.
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel 'throughput (requests/s)'
set object 1 rectangle from a0, graph 0 to a1, graph 1 behind fillcolor rgb '#0072b2' fillstyle transparent solid 0.12 noborder
set object 2 rectangle from b0, graph 0 to b1, graph 1 behind fillcolor rgb '#d55e00' fillstyle transparent solid 0.12 noborder
set label 1 'first third' at (a0 + a1) / 2, graph 0.96 center textcolor rgb '#0072b2'
set label 2 'last third' at (b0 + b1) / 2, graph 0.96 center textcolor rgb '#d55e00'
plotcmd = "plot datafile using 1:2 with lines lt 7 lw 1.5 title 'throughput'"
load plotdir.'/draw.gp'
